/**
 * The real agent CLIs (the agents lab's pins) running their hooks into Beacon: the hooks written by
 * `beacon install <agent> --hooks-only` alone into each one's private HOME (the guarded launcher
 * and its adapter, no collector: the fallback path), against the mock model's two-tool
 * script (write a file, then run a command that fails with exit 2). Its telemetry is off: what is
 * in the log came through the hooks alone. A missing CLI is a skip with its reason, never a pass.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { listJoined } from '../../src/store/queries/joined-events';
import { agentBinary, runAgent, type AgentName } from '../helpers/agent-cli';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { startMockModel } from '../helpers/mock-model';
import { tempDir } from '../helpers/paths';

const PROMPT = 'Write the lab note, then list the missing directory.';

interface RealAgent {
  name: AgentName;
  platform: string;
}

/** Codex is below: its own script (no edit tool on the lab's slug) and its trust flag. */
const REAL: RealAgent[] = [
  { name: 'claude', platform: 'claude-code' },
  { name: 'gemini', platform: 'gemini-cli' },
  { name: 'qwen', platform: 'qwen-code' },
  { name: 'copilot', platform: 'copilot-cli' },
];

/**
 * Beacon's hooks as `beacon install <agent> --hooks-only` writes them, into the settings file the
 * runner wrote (the agent's private HOME): the entries, the guarded launcher, Codex's switch.
 */
function installHooks(platform: string, home: string, log: string): void {
  const r = runBeacon(['install', platform, '--hooks-only', '--log', log], {
    HOME: home, XDG_CONFIG_HOME: join(home, '.config'), CODEX_HOME: join(home, '.codex'), COPILOT_HOME: join(home, '.copilot'),
    CLAUDE_CONFIG_DIR: '', BEACON_ENDPOINT_LOG: '', BEACON_SERVICE_NO_ACTIVATE: '1',
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
}

async function agentRun(agent: RealAgent, deny: boolean) {
  const home = tempDir(`${agent.name}-hooks-home-`);
  const work = tempDir(`${agent.name}-hooks-work-`);
  const log = join(tempDir(`${agent.name}-hooks-log-`), 'events.db');
  const sideEffect = join(work, 'SIDE-EFFECT');
  const note = join(work, 'beacon-lab-note.txt');
  const env: Record<string, string> = {};
  if (deny) {
    const provider = join(home, 'deny-side-effects.sh');
    writeFileSync(provider, `#!/bin/sh\ncase "$(cat)" in *SIDE-EFFECT*) echo '{"decision":"deny","reason":"no side effects here"}';; *) echo '{"decision":"allow"}';; esac\n`);
    chmodSync(provider, 0o755);
    env.BEACON_POLICY_PROVIDER = provider;
  }
  const command = `touch ${sideEffect} && ls /nonexistent-dir`;
  const mock = await startMockModel({ twoTools: { path: note, content: 'hello from the lab\n', command } });
  try {
    const run = await runAgent(agent.name, { mockUrl: mock.url, otlpBaseUrl: 'http://127.0.0.1:9', protocol: 'http/json', home, workdir: work, prompt: PROMPT, telemetry: false, timeoutMs: 100_000, env, beforeRun: () => installHooks(agent.platform, home, log) });
    return { run, log, note, sideEffect, command, mock, records: existsSync(log) ? jsonl(runBeacon(['events', '--log', log, '--json']).stdout) : [] };
  } finally {
    await mock.close();
  }
}

for (const agent of REAL) {
  describe(`${agent.name} (real CLI) with Beacon's hooks`, () => {
    const found = agentBinary(agent.name);
    it('records the prompt, the write with its diff, and the failing command (exit code 2), one row per call', { skip: found.skip, timeout: 150_000 }, async () => {
      const { run, records, note, sideEffect, command, log } = await agentRun(agent, false);
      assert.equal(run.code, 0, run.stderr);
      assert.ok(existsSync(note) && existsSync(sideEffect), 'both tools really ran');
      assert.ok(records.length > 0, `no records: ${run.stderr}`);
      for (const r of records) assert.deepEqual(r.harness, { name: agent.platform, collection_method: 'hook' });
      const session = records.find((r) => r.session?.id)?.session.id;
      assert.ok(records.every((r) => r.session?.id === session), 'one session');
      assert.deepEqual(records.filter((r) => r.event.action === 'prompt.submitted').map((r) => r.prompt.text), [PROMPT]);
      const write = records.find((r) => r.event.action === 'file.modified');
      assert.equal(write?.file.path, note);
      assert.match(write?.file.diff ?? '', /^\+hello from the lab$/m);
      const failed = records.find((r) => r.event.action === 'tool.failed');
      assert.equal(failed?.command?.command, command);
      assert.equal(failed?.command?.exit_code, 2);
      const db = EventLog.open(log, { readonly: true });
      const calls = listJoined(db, { sessionId: session }).filter((x) => x.kind === 'tool_call');
      db.close();
      assert.deepEqual(calls.map((c) => c.kind === 'tool_call' && c.seenBy), [['pre-tool', 'post-tool'], ['pre-tool', 'post-tool']], 'one row per call, its pre and post joined');
    });

    it('a deny policy stops the side effect, the model is told why, the denial is recorded', { skip: found.skip, timeout: 150_000 }, async () => {
      const { run, records, note, sideEffect, command, mock } = await agentRun(agent, true);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(readFileSync(note, 'utf8'), 'hello from the lab\n', 'the write was allowed');
      assert.equal(existsSync(sideEffect), false, 'the denied command did not run');
      const denied = records.find((r) => r.event.action === 'approval.denied');
      assert.equal(denied?.command?.command, command);
      assert.equal(denied?.policy?.reason, 'no side effects here');
      assert.match(JSON.stringify(mock.modelCalls().at(-1)!.body), /no side effects here/, 'the tool result the model got carries the reason');
    });
  });
}

/**
 * Codex runs hooks only with `[features] hooks = true` and trusted hooks (`--dangerously-bypass-hook-trust`
 * in exec). Its mock model here is the lab's fallback slug, which offers no edit tool: the one-tool
 * script (the shell runs `echo beacon-lab`) shows the prompt, the command and the model's call id,
 * and that Codex's strict reply parser takes Beacon's neutral answer and its deny.
 */
describe("codex (real CLI) with Beacon's hooks", () => {
  const found = agentBinary('codex');
  async function codexRun(deny: boolean) {
    const home = tempDir('codex-hooks-home-');
    const work = tempDir('codex-hooks-work-');
    const log = join(tempDir('codex-hooks-log-'), 'events.db');
    const env: Record<string, string> = {};
    if (deny) {
      const provider = join(home, 'deny-echo.sh');
      writeFileSync(provider, `#!/bin/sh\ncase "$(cat)" in *beacon-lab*) echo '{"decision":"deny","reason":"no echo here"}';; *) echo '{"decision":"allow"}';; esac\n`);
      chmodSync(provider, 0o755);
      env.BEACON_POLICY_PROVIDER = provider;
    }
    const configure = () => installHooks('codex', home, log);
    const mock = await startMockModel();
    try {
      const run = await runAgent('codex', { mockUrl: mock.url, otlpBaseUrl: 'http://127.0.0.1:9', protocol: 'http/json', home, workdir: work, telemetry: false, timeoutMs: 100_000, env, flags: ['--dangerously-bypass-hook-trust'], beforeRun: configure });
      return { run, mock, records: existsSync(log) ? jsonl(runBeacon(['events', '--log', log, '--json']).stdout) : [] };
    } finally {
      await mock.close();
    }
  }

  it('records the prompt and the command with the model\'s call id; every hook Completed (none Failed)', { skip: found.skip, timeout: 150_000 }, async () => {
    const { run, records } = await codexRun(false);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /hook: \w+ Failed/);
    assert.match(run.stderr, /hook: PreToolUse Completed/);
    for (const r of records) assert.deepEqual(r.harness, { name: 'codex', collection_method: 'hook' });
    assert.equal(records.filter((r) => r.event.action === 'prompt.submitted').length, 1);
    assert.ok(records.find((r) => r.event.action === 'prompt.submitted')?.prompt?.text, 'the prompt text');
    const cmd = records.find((r) => r.event.action === 'command.executed');
    assert.equal(cmd?.command?.command, 'echo beacon-lab');
    assert.equal(cmd?.gen_ai?.tool?.call?.id, 'call_beacon_0001');
    assert.deepEqual(records.filter((r) => r.event.action.startsWith('session.')).map((r) => r.event.action), ['session.started', 'session.ended']);
  });

  it('a deny policy blocks the command and the model is told why', { skip: found.skip, timeout: 150_000 }, async () => {
    const { run, records, mock } = await codexRun(true);
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /hook: \w+ Failed/);
    assert.equal(records.find((r) => r.event.action === 'approval.denied')?.policy?.reason, 'no echo here');
    assert.equal(records.some((r) => r.event.action === 'command.executed'), false, 'no PostToolUse: the command did not run');
    assert.match(JSON.stringify(mock.modelCalls().at(-1)!.body), /no echo here/);
  });
});

/**
 * Claude Code's `type: "http"` hooks: no process per event, Claude POSTs the payload to the running
 * collector itself. The entry carries the hook token and the log as headers (and the policy provider's
 * absolute path, for a deny); the route's refusals stay as they are for the launcher.
 */
describe("claude (real CLI) with Beacon's http hooks, straight to the collector", () => {
  const found = agentBinary('claude');
  it('records the prompt, the write with its diff and the failing command; a deny header path stops the side effect', { skip: found.skip, timeout: 150_000 }, async (t) => {
    const dir = tempDir('claude-http-log-');
    const log = join(dir, 'events.db');
    const c = await startCollector({ log });
    t.after(() => c.stop());
    const token = readFileSync(join(dir, 'hook-token'), 'utf8').trim().split(': ')[1]!;
    for (const deny of [false, true]) {
      const home = tempDir('claude-http-home-');
      const work = tempDir('claude-http-work-');
      const sideEffect = join(work, 'SIDE-EFFECT');
      const note = join(work, 'beacon-lab-note.txt');
      const command = `touch ${sideEffect} && ls /nonexistent-dir`;
      const headers: Record<string, string> = { 'X-Beacon-Hook-Token': token, 'X-Beacon-Log': log };
      if (deny) {
        headers['X-Beacon-Policy-Provider'] = join(home, 'deny.sh');
        writeFileSync(headers['X-Beacon-Policy-Provider'], `#!/bin/sh\ncase "$(cat)" in *SIDE-EFFECT*) echo '{"decision":"deny","reason":"no side effects here"}';; *) echo '{"decision":"allow"}';; esac\n`);
        chmodSync(headers['X-Beacon-Policy-Provider'], 0o755);
      }
      const events = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop'];
      const hooks = Object.fromEntries(events.map((e) => [e, [{ ...(e.includes('Tool') ? { matcher: '*' } : {}), hooks: [{ type: 'http', url: `${c.url}/v1/hooks/claude-code/${e}`, headers, timeout: 30 }] }]]));
      mkdirSync(join(home, '.claude'), { recursive: true });
      writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ hooks }));
      const mock = await startMockModel({ twoTools: { path: note, content: 'hello from the lab\n', command } });
      const run = await runAgent('claude', { mockUrl: mock.url, otlpBaseUrl: 'http://127.0.0.1:9', protocol: 'http/json', home, workdir: work, prompt: PROMPT, telemetry: false, timeoutMs: 90_000 }).finally(() => mock.close());
      assert.equal(run.code, 0, run.stderr);
      assert.equal(existsSync(sideEffect), !deny, deny ? 'denied: the command did not run' : 'the command ran');
      const all = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
      const session = all.find((r) => r.file?.path === note)?.session?.id;
      const recs = all.filter((r) => r.session?.id === session);
      assert.ok(session, 'the write is recorded');
      assert.deepEqual(recs.filter((r) => r.event.action === 'prompt.submitted').map((r) => r.prompt.text), [PROMPT]);
      assert.match(recs.find((r) => r.event.action === 'file.modified')?.file.diff ?? '', /^\+hello from the lab$/m);
      if (deny) assert.equal(recs.find((r) => r.event.action === 'approval.denied')?.policy?.reason, 'no side effects here');
      else assert.deepEqual([recs.find((r) => r.event.action === 'tool.failed')?.command?.command, recs.find((r) => r.event.action === 'tool.failed')?.command?.exit_code], [command, 2]);
    }
  });
});
