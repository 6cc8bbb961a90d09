/**
 * opencode (the real CLI, the agents lab's pin) with the thin forwarder plugin Beacon will install,
 * against the mock model's two-tool script; its telemetry off. Its own file because its two runs take
 * ~100 s on a loaded machine and the runner bounds each file at 180 s. A missing CLI is a skip.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { listJoined } from '../../src/store/queries/joined-events';
import { agentBinary, runAgent } from '../helpers/agent-cli';
import { jsonl, runBeacon } from '../helpers/daemon';
import { startMockModel } from '../helpers/mock-model';
import { HOOKS_BIN, tempDir } from '../helpers/paths';

const PROMPT = 'Write the lab note, then list the missing directory.';

/**
 * opencode has plugins, not command hooks. The forwarder here is the thin one issue 30 asks Beacon to
 * install (the installer slice writes the real one): each plugin hook's arguments, and the session
 * bus events, handed to `beacon-hooks --platform opencode <name>` on stdin, within a bound of its own
 * (opencode awaits a plugin with no timeout), and a deny reply thrown as the Error opencode shows the model.
 */
function opencodeForwarder(log: string): string {
  const argv = JSON.stringify([HOOKS_BIN, '--platform', 'opencode', '--log', log, '--config', '/nonexistent/config.json']);
  return `import { spawn } from 'node:child_process';
const forward = (name, payload) => new Promise((resolve) => {
  const child = spawn(${JSON.stringify(process.execPath)}, [...${argv}, name], { stdio: ['pipe', 'pipe', 'ignore'] });
  let out = '';
  const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(''); }, 10000);
  child.stdout.on('data', (d) => (out += d));
  child.on('close', () => { clearTimeout(timer); resolve(out); });
  child.on('error', () => { clearTimeout(timer); resolve(''); });
  child.stdin.on('error', () => {});
  child.stdin.end(JSON.stringify(payload));
});
const judged = async (name, payload) => {
  const out = (await forward(name, payload)).trim();
  let verdict;
  try { verdict = out ? JSON.parse(out) : undefined; } catch { verdict = undefined; }
  if (verdict && verdict.decision === 'deny') throw new Error(String(verdict.reason));
};
export const BeaconHooks = async (ctx) => ({
  event: async ({ event }) => { if (event.type === 'session.created' || event.type === 'session.idle') await forward(event.type, { directory: ctx.directory, event }); },
  'chat.message': async (input, output) => { await forward('chat.message', { directory: ctx.directory, input, output }); },
  'tool.execute.before': async (input, output) => judged('tool.execute.before', { directory: ctx.directory, input, output }),
  'tool.execute.after': async (input, output) => { await forward('tool.execute.after', { directory: ctx.directory, input, output }); },
});
`;
}

describe("opencode (real CLI) with a thin forwarder plugin", () => {
  const found = agentBinary('opencode');
  async function opencodeRun(deny: boolean) {
    const home = tempDir('opencode-hooks-home-');
    const work = tempDir('opencode-hooks-work-');
    const log = join(tempDir('opencode-hooks-log-'), 'events.db');
    const sideEffect = join(work, 'SIDE-EFFECT');
    const note = join(work, 'beacon-lab-note.txt');
    const command = `touch ${sideEffect} && ls /nonexistent-dir`;
    const env: Record<string, string> = {};
    if (deny) {
      const provider = join(home, 'deny-side-effects.sh');
      writeFileSync(provider, `#!/bin/sh\ncase "$(cat)" in *SIDE-EFFECT*) echo '{"decision":"deny","reason":"no side effects here"}';; *) echo '{"decision":"allow"}';; esac\n`);
      chmodSync(provider, 0o755);
      env.BEACON_POLICY_PROVIDER = provider;
    }
    const configure = () => {
      const cfg = join(work, 'opencode.json');
      const c = JSON.parse(readFileSync(cfg, 'utf8'));
      c.permission = { ...c.permission, external_directory: 'allow' }; // `ls /nonexistent-dir` is outside the project: `run` would reject the ask
      writeFileSync(cfg, JSON.stringify(c, null, 2));
      mkdirSync(join(work, '.opencode', 'plugins'), { recursive: true });
      writeFileSync(join(work, '.opencode', 'plugins', 'beacon.js'), opencodeForwarder(log));
    };
    const mock = await startMockModel({ twoTools: { path: note, content: 'hello from the lab\n', command } });
    try {
      const run = await runAgent('opencode', { mockUrl: mock.url, otlpBaseUrl: 'http://127.0.0.1:9', protocol: 'http/json', home, workdir: work, prompt: PROMPT, telemetry: false, timeoutMs: 100_000, env, beforeRun: configure });
      return { run, log, note, sideEffect, command, mock, records: existsSync(log) ? jsonl(runBeacon(['events', '--log', log, '--json']).stdout) : [] };
    } finally {
      await mock.close();
    }
  }

  it('records the prompt, the write with its diff, the failing command with exit code 2, one row per call', { skip: found.skip, timeout: 150_000 }, async () => {
    const { run, records, note, sideEffect, command, log, mock } = await opencodeRun(false);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(existsSync(note) && existsSync(sideEffect), 'both tools really ran');
    for (const r of records) assert.deepEqual(r.harness, { name: 'opencode', collection_method: 'hook' });
    // `opencode run` hands the model its prompt in quotes: the prompt is the text the model got
    const asked = (mock.modelCalls().at(-1)!.body as { messages: { role: string; content: string }[] }).messages.find((m) => m.role === 'user')?.content;
    assert.ok(asked?.includes(PROMPT));
    assert.deepEqual(records.filter((r) => r.event.action === 'prompt.submitted').map((r) => r.prompt.text), [asked]);
    const write = records.find((r) => r.event.action === 'file.modified');
    assert.equal(write?.file.path, note);
    assert.match(write?.file.diff ?? '', /^\+hello from the lab$/m);
    const failed = records.find((r) => r.event.action === 'tool.failed');
    assert.deepEqual([failed?.command?.command, failed?.command?.exit_code, failed?.gen_ai?.tool?.call?.id], [command, 2, 'call_beacon_0002']);
    const session = failed?.session?.id;
    const db = EventLog.open(log, { readonly: true });
    const calls = listJoined(db, { sessionId: session }).filter((x) => x.kind === 'tool_call');
    db.close();
    assert.deepEqual(calls.map((c) => c.kind === 'tool_call' && c.seenBy), [['pre-tool', 'post-tool'], ['pre-tool', 'post-tool']]);
  });

  it('a deny policy stops the side effect (the forwarder throws the reason)', { skip: found.skip, timeout: 150_000 }, async () => {
    const { records, note, sideEffect, mock } = await opencodeRun(true);
    assert.equal(readFileSync(note, 'utf8'), 'hello from the lab\n');
    assert.equal(existsSync(sideEffect), false, 'the denied command did not run');
    assert.equal(records.find((r) => r.event.action === 'approval.denied')?.policy?.reason, 'no side effects here');
    assert.match(JSON.stringify(mock.modelCalls().at(-1)!.body), /no side effects here/);
  });
});

