/**
 * The policy provider judged alike on both hook paths (issue 22 items 12 and 13), through goose's
 * own `sh -c` and the real launcher: a provider named relative to goose's directory or found on
 * goose's PATH blocks on the fast path as on the fallback (on main the collector resolved it against
 * its own directory, without PATH, and allowed), and a provider that answers deny but leaves a
 * background child holding its stdout is a deny, not a timeout (on main: allow after 2 s).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jsonl, runBeacon, startCollector, type RunningCollector } from '../helpers/daemon';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const SESSION = '20261201_policy';
const DENY = '#!/bin/sh\ncat >/dev/null\necho \'{"decision":"deny","reason":"provider says no"}\'\n';
const LINGERING_DENY = '#!/bin/sh\ncat >/dev/null\n(sleep 8 &)\necho \'{"decision":"deny","reason":"provider says no"}\'\n';

/** `beacon install goose` in a fresh home pointed at `port`; the hook command goose runs for PreToolUse. */
function install(port: number, log: string, pinnedNode: string): { env: NodeJS.ProcessEnv; command: string } {
  const home = tempDir('policy-home-');
  mkdirSync(join(home, '.beacon', 'endpoint'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port, log } }));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', GOOSE_PATH_ROOT: '', BEACON_ENDPOINT_LOG: '', BEACON_POLICY_PROVIDER: '' };
  const r = spawnSync(process.execPath, [BEACON_BIN, 'install', 'goose'], { env, cwd: home, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const launcher = join(home, '.beacon', 'endpoint', 'bin', 'beacon-hooks');
  // a pinned Node.js that does not exist: only the fast path can record (or the fallback, when pinned to the real one)
  writeFileSync(launcher, readFileSync(launcher, 'utf8').replace(/^node=.*$/m, `node='${pinnedNode}'`));
  const hooks = JSON.parse(readFileSync(join(home, '.agents', 'plugins', 'beacon-endpoint', 'hooks', 'hooks.json'), 'utf8')).hooks;
  const command = (hooks.PreToolUse[0].hooks[0].command as string).replace(/--log '[^']*'/, `--log '${log}'`);
  return { env, command };
}

const pre = (id: string) => ({ event: 'PreToolUse', session_id: SESSION, matcher_context: 'shell', tool_call_id: id, tool_name: 'developer__shell', tool_input: { command: 'ls' }, working_dir: '/home/alice/proj' });

/** goose running the hook in `cwd` with `env` added: the reply, and how long it took. */
function goose(inst: { env: NodeJS.ProcessEnv; command: string }, id: string, cwd: string, env: NodeJS.ProcessEnv) {
  const t0 = Date.now();
  const r = spawnSync('sh', ['-c', inst.command], { input: JSON.stringify(pre(id)), cwd, env: { ...inst.env, ...env }, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0 };
}

describe('the policy provider on the fast path and the fallback', () => {
  let c: RunningCollector;
  let log: string;
  let fast: { env: NodeJS.ProcessEnv; command: string };
  let fallback: { env: NodeJS.ProcessEnv; command: string };
  /** goose's working directory, holding ./deny; the collector runs elsewhere */
  let project: string;
  /** a directory on goose's PATH only, holding deny-provider */
  let bin: string;

  before(async () => {
    const dir = tempDir('policy-');
    log = join(dir, 'events.db');
    c = await startCollector({ log });
    fast = install(c.port, log, '/nonexistent/node');
    fallback = install(1, join(dir, 'direct', 'events.db'), process.execPath);
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
