/**
 * The real Claude Code CLI (the agents lab's pin) running its hooks into Beacon: the hooks set by
 * hand in its private HOME's settings.json (the installer half of issue 30 comes later), each a
 * `sh -c` command line running the built dist/beacon-hooks.js, against the mock model's two-tool
 * script (write a file, then run a command that fails with exit 2). Its telemetry is off: what is
 * in the log came through the hooks alone. A missing CLI is a skip with its reason, never a pass.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { agentBinary, runAgent } from '../helpers/agent-cli';
import { jsonl, runBeacon } from '../helpers/daemon';
import { agentHookCommand } from '../helpers/hooks';
import { startMockModel } from '../helpers/mock-model';
import { tempDir } from '../helpers/paths';

const EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SessionEnd'];
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);
const PROMPT = 'Write the lab note, then list the missing directory.';

/** `~/.claude/settings.json` with Beacon's hook on every event the adapter answers (matcher `*` on tool events). */
function claudeSettings(log: string): string {
  const hooks = Object.fromEntries(EVENTS.map((e) => [e, [{ ...(TOOL_EVENTS.has(e) ? { matcher: '*' } : {}), hooks: [{ type: 'command', command: agentHookCommand('claude-code', log, e), timeout: 30 }] }]]));
  return JSON.stringify({ hooks }, null, 2);
}

async function claudeRun(deny: boolean) {
  const home = tempDir('claude-hooks-home-');
  const work = tempDir('claude-hooks-work-');
  const log = join(tempDir('claude-hooks-log-'), 'events.db');
  const sideEffect = join(work, 'SIDE-EFFECT');
  const note = join(work, 'beacon-lab-note.txt');
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(join(home, '.claude', 'settings.json'), claudeSettings(log));
  const env: Record<string, string> = {};
  if (deny) {
    const provider = join(home, 'deny-side-effects.sh');
    writeFileSync(provider, `#!/bin/sh\ncase "$(cat)" in *SIDE-EFFECT*) echo '{"decision":"deny","reason":"no side effects here"}';; *) echo '{"decision":"allow"}';; esac\n`);
    chmodSync(provider, 0o755);
    env.BEACON_POLICY_PROVIDER = provider;
  }
  const mock = await startMockModel({ twoTools: { path: note, content: 'hello from the lab\n', command: `touch ${sideEffect} && ls /nonexistent-dir` } });
  try {
    const run = await runAgent('claude', { mockUrl: mock.url, otlpBaseUrl: 'http://127.0.0.1:9', protocol: 'http/json', home, workdir: work, prompt: PROMPT, telemetry: false, timeoutMs: 90_000, env });
    return { run, log, note, sideEffect, mock, records: existsSync(log) ? jsonl(runBeacon(['events', '--log', log, '--json']).stdout) : [] };
  } finally {
    await mock.close();
  }
}

describe('Claude Code (real CLI) with Beacon\'s hooks', () => {
  const found = agentBinary('claude');
  it('records the prompt, the write with its diff, and the failing command with its exit code', { skip: found.skip, timeout: 120_000 }, async () => {
    const { run, records, note, sideEffect } = await claudeRun(false);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(existsSync(note) && existsSync(sideEffect), 'both tools really ran');
    for (const r of records) assert.deepEqual(r.harness, { name: 'claude-code', collection_method: 'hook' });
    const session = records.find((r) => r.event.action === 'session.started')?.session?.id;
    assert.ok(session, 'SessionStart recorded');
    assert.deepEqual(records.filter((r) => r.event.action === 'prompt.submitted').map((r) => r.prompt.text), [PROMPT]);
    const write = records.find((r) => r.event.action === 'file.modified');
    assert.equal(write?.file.path, note);
    assert.match(write?.file.diff ?? '', /^\+hello from the lab$/m);
    const failed = records.find((r) => r.event.action === 'tool.failed');
    assert.equal(failed?.command?.command, `touch ${sideEffect} && ls /nonexistent-dir`);
    assert.equal(failed?.command?.exit_code, 2);
    assert.equal(failed?.gen_ai?.tool?.call?.id, 'toolu_beacon_0002', "the model's call id");
    assert.ok(records.every((r) => r.session?.id === session), 'one session');
  });

  it('a deny policy stops the side effect, and Claude shows the model the reason', { skip: found.skip, timeout: 120_000 }, async () => {
    const { run, records, note, sideEffect, mock } = await claudeRun(true);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(existsSync(note), 'the write was allowed');
    assert.equal(existsSync(sideEffect), false, 'the denied command did not run');
    const denied = records.find((r) => r.event.action === 'approval.denied');
    assert.equal(denied?.command?.command, `touch ${sideEffect} && ls /nonexistent-dir`);
    assert.equal(denied?.policy?.reason, 'no side effects here');
    const last = mock.modelCalls().at(-1)!;
    assert.match(JSON.stringify(last.body), /no side effects here/, 'the tool result the model got is the reason');
    assert.equal(readFileSync(note, 'utf8'), 'hello from the lab\n');
  });
});
