/**
 * The policy provider judged alike on both hook paths (issue 22 items 12 and 13), through goose's
 * own `sh -c` and the real launcher: a provider named relative to goose's directory or found on
 * goose's PATH blocks on the fast path as on the fallback (on main the collector resolved it against
 * its own directory, without PATH, and allowed), and a provider that answers deny but leaves a
 * background child holding its stdout is a deny, not a timeout (on main: allow after 2 s).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jsonl, runBeacon, startCollector, type RunningCollector } from '../helpers/daemon';
import { installGooseHooks, runGooseHook, type InstalledHooks } from '../helpers/launcher';
import { tempDir } from '../helpers/paths';

const SESSION = '20261201_policy';
const DENY = '#!/bin/sh\ncat >/dev/null\necho \'{"decision":"deny","reason":"provider says no"}\'\n';
const LINGERING_DENY = '#!/bin/sh\ncat >/dev/null\n(sleep 8 &)\necho \'{"decision":"deny","reason":"provider says no"}\'\n';

const pre = (id: string) => ({ event: 'PreToolUse', session_id: SESSION, matcher_context: 'shell', tool_call_id: id, tool_name: 'developer__shell', tool_input: { command: 'ls' }, working_dir: '/home/alice/proj' });

/** goose running the PreToolUse hook in `cwd` with `env` added. */
const goose = (inst: InstalledHooks, id: string, cwd: string, env: NodeJS.ProcessEnv) => runGooseHook(inst, 'PreToolUse', pre(id), { cwd, env });

describe('the policy provider on the fast path and the fallback', () => {
  let c: RunningCollector;
  let log: string;
  let fast: InstalledHooks;
  let fallback: InstalledHooks;
  /** goose's working directory, holding ./deny; the collector runs elsewhere */
  let project: string;
  /** a directory on goose's PATH only, holding deny-provider */
  let bin: string;

  before(async () => {
    const dir = tempDir('policy-');
    log = join(dir, 'events.db');
    c = await startCollector({ log });
    fast = installGooseHooks(c.port, log, '/nonexistent/node');
    fallback = installGooseHooks(1, join(dir, 'direct', 'events.db'));
    project = tempDir('policy-project-');
    writeFileSync(join(project, 'deny'), DENY, { mode: 0o755 });
    writeFileSync(join(project, 'lingering-deny'), LINGERING_DENY, { mode: 0o755 });
    bin = tempDir('policy-bin-');
    writeFileSync(join(bin, 'deny-provider'), DENY, { mode: 0o755 });
  });
  after(async () => {
    await c?.stop();
  });

  const blocked = (r: { status: number | null; stdout: string; stderr: string }, what: string) => {
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { decision: 'block', reason: 'provider says no' }, `${what}: ${r.stdout} ${r.stderr}`);
  };

  // item 12: fails on main (the collector looked for ./deny in its own directory, and never on PATH)
  it('a provider named relative to goose\'s directory blocks on both paths', () => {
    blocked(goose(fast, 'toolu_rel_fast', project, { BEACON_POLICY_PROVIDER: './deny' }), 'fast path');
    blocked(goose(fallback, 'toolu_rel_slow', project, { BEACON_POLICY_PROVIDER: './deny' }), 'fallback');
    const denied = jsonl(runBeacon(['events', '--log', log, '--json', '--session', SESSION]).stdout).filter((e) => e.event.action === 'approval.denied');
    assert.ok(denied.some((e) => e.gen_ai?.tool?.call?.id === 'toolu_rel_fast'), 'recorded by the collector, not by the fallback');
  });

  it('a bare name is found on goose\'s PATH, on both paths', () => {
    const env = { BEACON_POLICY_PROVIDER: 'deny-provider', PATH: `${bin}:${process.env.PATH}` };
    blocked(goose(fast, 'toolu_path_fast', project, env), 'fast path');
    blocked(goose(fallback, 'toolu_path_slow', project, env), 'fallback');
  });

  it('a name that resolves to nothing is no provider on either path (fail-open, as before)', () => {
    for (const inst of [fast, fallback]) assert.equal(goose(inst, 'toolu_none', project, { BEACON_POLICY_PROVIDER: 'no-such-provider' }).stdout, '{"decision":"allow"}');
  });

  // item 13: fails on main (stdout held open by the background sleep: a timeout, so allow, after 2 s)
  it('a deny is a deny even when the provider leaves a child holding its stdout', () => {
    for (const [inst, what] of [[fast, 'fast path'], [fallback, 'fallback']] as const) {
      const r = goose(inst, `toolu_linger_${what}`, project, { BEACON_POLICY_PROVIDER: join(project, 'lingering-deny') });
      blocked(r, what);
      assert.ok(r.ms < 1900, `${what}: answered after ${r.ms} ms, not at the provider's exit`);
    }
  });
});
