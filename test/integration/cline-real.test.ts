/**
 * Issue 34's "done means" for Cline: a fresh home, `beacon install cline` alone (its hook files),
 * one real `cline --json` run against the mock model's two-tool script, then `beacon import cline`
 * (Cline has no OTLP Beacon can receive: its model calls are in its session store). The log then
 * holds the prompt, the write with its diff, the failing command with its line, the three model
 * calls with the mock's tokens exactly (input less the cache), one row per tool call across the hook
 * and store paths. A policy deny cancels the task before the write happens. Uninstall leaves the
 * user's own hook file and the hooks directory byte for byte as they were. A missing CLI is a skip.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { listJoined } from '../../src/store/queries/joined-events';
import { clineBinary, runCline } from '../helpers/cline-lab';
import { jsonl, startCollector, type RunningCollector } from '../helpers/daemon';
import { startMockModel, type MockModel } from '../helpers/mock-model';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const PROMPT = 'Write the lab note, then list the missing directory.';
const COMMAND = 'ls /nonexistent-dir';
const USER_HOOK = '#!/bin/sh\n# the user\'s own hook\necho "{}"\n';

interface Lab {
  home: string;
  work: string;
  note: string;
  mock: MockModel;
  collector: RunningCollector;
  beacon(args: string[], env?: NodeJS.ProcessEnv): ReturnType<typeof spawnSync>;
  done(): Promise<void>;
}

/**
 * `follow`: the collector's home is the lab's, so it follows Cline's store as it is written:
 * 'installed' by `beacon install cline` alone (the collector restarted after the install, no
 * importFollow), 'setting' by `importFollow: cline`.
 */
async function lab(follow: false | 'setting' | 'installed' = false): Promise<Lab> {
  const base = tempDir('cline-real-');
  const home = join(base, 'home');
  const work = join(base, 'work');
  const note = join(work, 'beacon-lab-note.txt');
  const mock = await startMockModel({ twoTools: { path: note, content: 'hello from the lab\n', command: COMMAND } });
  const env = follow === 'setting' ? { HOME: home, BEACON_IMPORT_FOLLOW: 'cline' } : follow === 'installed' ? { HOME: home } : undefined;
  let collector = await startCollector(env ? { env } : {});
  const configure = () => {
    mkdirSync(join(home, '.beacon', 'endpoint'), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port: collector.port, log: collector.log } }));
  };
  configure();
  const beacon = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    spawnSync(process.execPath, [BEACON_BIN, ...args], { env: { PATH: process.env.PATH, HOME: home, SHELL: '/bin/bash', BEACON_SERVICE_NO_ACTIVATE: '1', COLUMNS: '160', ...env }, encoding: 'utf8' });
  if (follow === 'installed') {
    const install = beacon(['install', 'cline']);
    assert.equal(install.status, 0, String(install.stdout) + String(install.stderr));
    assert.match(String(install.stdout), /the collector follows from its next start/);
    // the collector reads the install state when it starts: the one a user restarts after installing
    await collector.stop();
    collector = await startCollector({ log: collector.log, env: env! });
    configure();
  }
  return { home, work, note, mock, collector, beacon, done: async () => { await collector.stop(); await mock.close(); rmSync(base, { recursive: true, force: true }); } };
}

const snapshot = (dir: string) => Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f), 'utf8')]));

function skipWithout(t: TestContext): string | undefined {
  const found = clineBinary();
  if (!found.path) t.skip(found.skip);
  return found.path;
}

describe('Cline, set up by beacon install cline alone', () => {
  it('one real run: the prompt, the write with its diff, the failing command, the model calls with the mock\'s tokens, one row per call; uninstall restores the hooks directory', { timeout: 150_000 }, async (t) => {
    const bin = skipWithout(t);
    if (!bin) return;
    const l = await lab();
    try {
      const hooksDir = join(l.home, '.cline', 'hooks');
      mkdirSync(hooksDir, { recursive: true });
      writeFileSync(join(hooksDir, 'PreToolUse'), USER_HOOK);
      chmodSync(join(hooksDir, 'PreToolUse'), 0o755);
      const before = snapshot(hooksDir);
      const install = l.beacon(['install', 'cline']);
      assert.equal(install.status, 0, String(install.stdout) + String(install.stderr));
      assert.deepEqual(readdirSync(hooksDir).sort(), ['PostToolUse.bash', 'PreToolUse', 'PreToolUse.bash', 'TaskComplete.bash', 'TaskStart.bash', 'UserPromptSubmit.bash']);

      const run = await runCline({ bin, home: l.home, workdir: l.work, mockUrl: l.mock.url, prompt: PROMPT });
      assert.equal(run.code, 0, `exit ${run.code}\n${run.stderr.slice(-1500)}`);
      assert.equal(readFileSync(l.note, 'utf8'), 'hello from the lab\n', 'the user\'s own PreToolUse hook and Beacon\'s both ran, neither steered');
      assert.equal(l.mock.modelCalls().length, 3);
      const imported = l.beacon(['import', 'cline', '--log', l.collector.log]);
      assert.equal(imported.status, 0, String(imported.stderr));

      const records = jsonl(String(l.beacon(['events', '--json', '--log', l.collector.log]).stdout)).filter((r) => r.harness.name === 'cline');
      const session: string = records.find((r) => r.harness.collection_method === 'hook')?.session?.id;
      assert.match(session, /^\d+_[a-z0-9]+$/, 'the hooks name the session the store names (rootSessionId)');
      const printed = String(l.beacon(['events', '--log', l.collector.log, '--session', session]).stdout);
      t.diagnostic(`beacon events --session ${session}\n${printed}`);
      const mine = records.filter((r) => r.session?.id === session);
      assert.deepEqual(mine.filter((r) => r.event.action === 'prompt.submitted').map((r) => r.prompt?.text), [PROMPT]);
      const write = mine.find((r) => r.event.action === 'file.modified' && r.harness.collection_method === 'hook');
      assert.equal(write?.file?.path, l.note);
      assert.match(write?.file?.diff ?? '', /^\+hello from the lab$/m);
      const failed = mine.filter((r) => r.event.action === 'tool.failed' && r.command?.command === COMMAND);
      assert.deepEqual(failed.map((r) => [r.harness.collection_method, r.command.exit_code]).sort(), [['hook', 2], ['poll', 2]]);
      const calls = mine.filter((r) => r.event.action === 'model.invoked');
      assert.deepEqual(calls.map((r) => [r.gen_ai.usage.input_tokens, r.gen_ai.usage.cache_read?.input_tokens, r.gen_ai.usage.output_tokens]), [[900, 300, 40], [900, 300, 40], [500, 1000, 25]]);
      const log = EventLog.open(l.collector.log, { readonly: true });
      const rows = listJoined(log, { sessionId: session }).filter((x) => x.kind === 'tool_call');
      log.close();
      assert.equal(rows.length, 2, `one row per call across the hook and store paths: ${JSON.stringify(rows.map((x) => x.kind === "tool_call" && [x.callId, x.seenBy]))}`);

      const uninstall = l.beacon(['uninstall', 'cline']);
      assert.equal(uninstall.status, 0, String(uninstall.stdout) + String(uninstall.stderr));
      assert.deepEqual(snapshot(hooksDir), before, 'the user\'s hook file byte for byte, Beacon\'s gone');
    } finally {
      await l.done();
    }
  });

  it('a policy deny is Cline\'s cancel: the task stops before the write, and the denial is recorded', { timeout: 150_000 }, async (t) => {
    const bin = skipWithout(t);
    if (!bin) return;
    const l = await lab();
    try {
      assert.equal(l.beacon(['install', 'cline']).status, 0);
      const judge = join(l.home, 'provider.sh');
      writeFileSync(judge, '#!/bin/sh\ncat >/dev/null; echo \'{"decision":"deny","reason":"no writes in the lab"}\'\n');
      chmodSync(judge, 0o755);
      const run = await runCline({ bin, home: l.home, workdir: l.work, mockUrl: l.mock.url, prompt: PROMPT, env: { BEACON_POLICY_PROVIDER: judge } });
      t.diagnostic(`cline exit ${run.code}; its last lines:\n${run.stdout.trim().split('\n').slice(-3).join('\n')}`);
      assert.equal(existsSync(l.note), false, 'the denied write did not happen');
      assert.equal(l.mock.modelCalls().length, 1, 'the whole task was cancelled: no call after the denied one');
      const records = jsonl(String(l.beacon(['events', '--json', '--log', l.collector.log]).stdout));
      assert.ok(records.some((r) => r.harness.name === 'cline' && r.event.action === 'approval.denied'), JSON.stringify(records.map((r) => r.event.action)));
    } finally {
      await l.done();
    }
  });

  it('beacon stream cline -- cline …: the wrapper adds --json, passes the stream through, and records each model call with the mock\'s tokens', { timeout: 150_000 }, async (t) => {
    const bin = skipWithout(t);
    if (!bin) return;
    const l = await lab();
    try {
      const run = await runCline({
        bin, home: l.home, workdir: l.work, mockUrl: l.mock.url, prompt: PROMPT,
        command: (argv) => [process.execPath, BEACON_BIN, 'stream', 'cline', '--log', l.collector.log, '--', bin, ...argv.slice(1).filter((a) => a !== '--json')],
      });
      assert.equal(run.code, 0, `exit ${run.code}\n${run.stderr.slice(-1500)}`);
      assert.match(run.stdout, /"type":"run_result"/, 'the agent\'s own --json stream, passed through');
      const records = jsonl(String(l.beacon(['events', '--json', '--log', l.collector.log]).stdout)).filter((r) => r.harness?.name === 'cline');
      const usage = records.filter((r) => r.gen_ai?.usage).map((r) => [r.gen_ai.usage.input_tokens, r.gen_ai.usage.cache_read?.input_tokens, r.gen_ai.usage.output_tokens]);
      assert.deepEqual(usage, [[900, 300, 40], [900, 300, 40], [500, 1000, 25]]);
      assert.deepEqual(records.filter((r) => r.event.action === 'tool.failed').map((r) => [r.command?.command, r.command?.exit_code]), [[COMMAND, 2]]);
      assert.ok(records.some((r) => r.event.action === 'file.modified' && r.file?.path === l.note));
    } finally {
      await l.done();
    }
  });

  for (const follow of ['setting', 'installed'] as const) it(`with the collector following Cline's store (${follow === 'setting' ? 'importFollow: cline' : 'beacon install cline alone, importFollow unset'}), no import is run: the same one row per call, each model call once, mid-turn reads adding nothing`, { timeout: 150_000 }, async (t) => {
    const bin = skipWithout(t);
    if (!bin) return;
    const l = await lab(follow);
    try {
      if (follow === 'setting') assert.equal(l.beacon(['install', 'cline']).status, 0);
      const run = await runCline({ bin, home: l.home, workdir: l.work, mockUrl: l.mock.url, prompt: PROMPT });
      assert.equal(run.code, 0, run.stderr.slice(-1500));
      let mine: any[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
      for (let i = 0; i < 40 && mine.filter((r) => r.event.action === 'model.invoked').length < 3; i++) {
        await new Promise((r) => setTimeout(r, 250));
        mine = jsonl(String(l.beacon(['events', '--json', '--log', l.collector.log]).stdout)).filter((r) => r.harness.name === 'cline');
      }
      assert.deepEqual(mine.filter((r) => r.event.action === 'model.invoked').map((r) => r.gen_ai.usage.input_tokens), [900, 900, 500]);
      assert.deepEqual(mine.filter((r) => r.event.action === 'prompt.submitted').map((r) => r.prompt?.text), [PROMPT]);
      const tools = mine.filter((r) => r.harness.collection_method === 'poll' && r.gen_ai?.tool).map((r) => [r.gen_ai.tool.call.id, r.event.action]);
      assert.deepEqual(tools, [['call_beacon_0001', 'file.modified'], ['call_beacon_0002', 'tool.failed']], 'each call once from the store, with its outcome');
    } finally {
      await l.done();
    }
  });
});
