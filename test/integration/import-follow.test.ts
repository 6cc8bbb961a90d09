/**
 * Following the agents' session stores as they write them (issue 31 item 3): `beacon import
 * --follow` picks up a session file in a directory made after it started (Codex's YYYY/MM/DD) and
 * a line appended to it within seconds, and the collector with `importFollow` records a transcript
 * written after its start, its state on /health.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const THREAD = '019a2b3c-0000-7f60-8a9b-0c1d2e3f4a5b';
const SESSION = '6c2e8d2f-3b68-4d4f-8a54-2e3c0f1d8b22';
const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const at = (s: string) => `2026-11-22T08:00:${s}Z`;

const codexStart = () =>
  line({ timestamp: at('00.000'), type: 'session_meta', payload: { id: THREAD, cli_version: '0.171.0', model_provider: 'mock' } }) +
  line({ timestamp: at('00.010'), type: 'turn_context', payload: { turn_id: 't1', model: 'gpt-5-mock' } }) +
  line({ timestamp: at('00.020'), type: 'event_msg', payload: { type: 'item_completed', item: { type: 'UserMessage', id: 'um-1', content: [{ type: 'text', text: 'followed' }] } } });
const codexCall = (n: number) => line({ timestamp: at(`0${n}.100`), type: 'token_usage_record', payload: { response_id: `resp_f${n}`, usage: { input_tokens: 1000 + n, cached_input_tokens: 0, output_tokens: 5, reasoning_output_tokens: 0, total_tokens: 1005 + n } } });

/** `beacon import --follow` running, its stdout lines as they come. */
function follow(home: string, log: string) {
  const proc = spawn(process.execPath, [BEACON_BIN, 'import', '--follow', '--from', home, '--log', log], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: { text: string; at: number }[] = [];
  const waiters: (() => void)[] = [];
  createInterface({ input: proc.stdout! }).on('line', (text) => {
    lines.push({ text, at: Date.now() });
    waiters.splice(0).forEach((w) => w());
  });
  let stderr = '';
  proc.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  /** the first line matching `re` from index `from` on, within `ms` */
  const next = async (re: RegExp, from: number, ms: number) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = lines.slice(from).find((l) => re.test(l.text));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no line matching ${re} within ${ms} ms; stdout: ${lines.map((l) => l.text).join('\n')}; stderr: ${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  const started = async () => {
    for (let i = 0; i < 100 && !/following/.test(stderr); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(stderr, /following/);
  };
  return { proc, lines, next, started, exited, stderr: () => stderr };
}

describe('beacon import --follow', () => {
  it('picks up a session file in a new directory and a line appended to it within seconds, and stops on SIGTERM', async () => {
    const home = tempDir('follow-home-');
    mkdirSync(join(home, '.codex', 'sessions'), { recursive: true, mode: 0o700 });
    const log = join(tempDir('follow-log-'), 'events.db');
    const f = follow(home, log);
    try {
      await f.started();
      await new Promise((r) => setTimeout(r, 300)); // its first pass and watch in place
      const day = join(home, '.codex', 'sessions', '2026', '11', '22');
      mkdirSync(day, { recursive: true, mode: 0o700 }); // Codex makes the day's directory when the day's first session starts
      const file = join(day, `rollout-2026-11-22T08-00-00-${THREAD}.jsonl`);
      const written = Date.now();
      writeFileSync(file, codexStart() + codexCall(1), { mode: 0o600 });
      const first = await f.next(/^codex: added 2 events from .*rollout-/, 0, 8000);
      const appended = Date.now();
      appendFileSync(file, codexCall(2));
      const second = await f.next(/^codex: added 1 event from .*rollout-/, f.lines.indexOf(first) + 1, 8000);
      // the figure the report quotes: how long after a write its line came
      console.log(`follow latency: new file ${first.at - written} ms, appended line ${second.at - appended} ms`);
      f.proc.kill('SIGTERM');
      assert.equal(await f.exited, 0, f.stderr());
      const calls = jsonl(runBeacon(['events', '--log', log, '--json']).stdout).filter((r) => r.event.action === 'model.invoked');
      assert.deepEqual(calls.map((c) => [c.gen_ai.response.id, c.session.id, c.model]), [['resp_f1', THREAD, 'gpt-5-mock'], ['resp_f2', THREAD, 'gpt-5-mock']]);
    } finally {
      if (f.proc.exitCode === null) f.proc.kill('SIGKILL');
    }
  });

  it('takes no --dry-run or --since', () => {
    const r = runBeacon(['import', '--follow', '--dry-run', '--from', tempDir('follow-home-'), '--log', join(tempDir('follow-log-'), 'events.db')]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--follow .*no --dry-run or --since/);
  });
});

describe('the collector with importFollow', () => {
  it('records a transcript written after its start, and says so on /health', async () => {
    const home = tempDir('follow-collector-home-');
    const claudeConfig = join(home, 'claude-config');
    const collector = await startCollector({ env: { BEACON_IMPORT_FOLLOW: 'claude-code', CLAUDE_CONFIG_DIR: claudeConfig } });
    try {
      const project = join(claudeConfig, 'projects', '-work');
      mkdirSync(project, { recursive: true, mode: 0o700 }); // the store did not exist when the collector started
      writeFileSync(join(project, `${SESSION}.jsonl`), line({ sessionId: SESSION, version: '2.1.197', cwd: '/work', timestamp: '2026-11-22T09:00:00.000Z', type: 'user', uuid: 'u-f', message: { role: 'user', content: 'written after the start' } }), { mode: 0o600 });
      const deadline = Date.now() + 10_000;
      let prompts: { prompt: { text: string }; harness: { collection_method: string } }[] = [];
      while (Date.now() < deadline && prompts.length === 0) {
        await new Promise((r) => setTimeout(r, 250));
        prompts = jsonl(runBeacon(['events', '--log', collector.log, '--json']).stdout).filter((r) => r.event.action === 'prompt.submitted');
      }
      assert.deepEqual(prompts.map((p) => [p.prompt.text, p.harness.collection_method]), [['written after the start', 'poll']]);
      const health = (await (await fetch(`${collector.url}/health`)).json()) as { importFollow?: { agents: string[]; added: number; passes: number } };
      assert.deepEqual(health.importFollow?.agents, ['claude-code']);
      assert.equal(health.importFollow?.added, 1);
      assert.ok(health.importFollow!.passes >= 1);
    } finally {
      assert.equal(await collector.stop(), 0);
    }
  });

  it('an unknown agent in importFollow fails the start, naming it', async () => {
    await assert.rejects(startCollector({ env: { BEACON_IMPORT_FOLLOW: 'cluade' } }), /importFollow: unknown agent "cluade"/);
  });
});
