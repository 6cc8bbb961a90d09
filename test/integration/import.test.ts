/**
 * `beacon import` on session files in the agents' own formats (the shapes Claude Code 2.1.197 and
 * Codex 0.171.0 wrote in the agents lab, cut to what the readers read): what it records, that a
 * second import adds nothing, --dry-run and --since, and hostile files (issue 31 item 5). The real
 * CLIs' own files, beside their OTLP export, are imported in import-real-*.test.ts.
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { jsonl, runBeacon } from '../helpers/daemon';
import { ATTACKER } from '../helpers/other-user';
import { tempDir } from '../helpers/paths';

const SESSION = '718bedbb-8082-41a4-b134-4316e52f38a5';
const THREAD = '01a23426-b742-78a1-9763-ef0a67e4ab0d';
const SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';

const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const claudeBase = (t: string) => ({ sessionId: SESSION, version: '2.1.197', cwd: '/work', timestamp: `2026-11-15T10:00:${t}Z` });

/** A transcript: the prompt (with a secret), a Write, a failing Bash (exit 2) with a token in its argument, the answer. */
function claudeTranscript(): string {
  const usage = (i: number, cr: number, cc: number, o: number) => ({ input_tokens: i, cache_read_input_tokens: cr, cache_creation_input_tokens: cc, output_tokens: o });
  const assistant = (t: string, id: string, content: unknown[], u: object, stop: string) => line({ ...claudeBase(t), type: 'assistant', uuid: `a-${id}`, message: { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason: stop, usage: u } });
  return [
    line({ type: 'queue-operation', operation: 'enqueue', timestamp: '2026-11-15T10:00:00.000Z', sessionId: SESSION, content: `prompt with ${SECRET}` }),
    line({ ...claudeBase('00.100'), type: 'user', uuid: 'u-1', promptId: 'p-1', message: { role: 'user', content: `Write the note. my token is ${SECRET}` } }),
    assistant('01.000', 'msg_1', [{ type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file_path: '/home/alice/proj/note.txt', content: 'hello\n' } }], usage(1200, 300, 50, 40), 'tool_use'),
    line({ ...claudeBase('01.100'), type: 'user', uuid: 'u-2', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'File created successfully' }] } }),
    assistant('02.000', 'msg_2', [{ type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: `curl -H "Authorization: token ${SECRET}" /nonexistent` } }], usage(1200, 300, 50, 40), 'tool_use'),
    line({ ...claudeBase('02.100'), type: 'user', uuid: 'u-3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'Exit code 2\ncurl: nope', is_error: true }] } }),
    assistant('03.000', 'msg_3', [{ type: 'text', text: 'Done.' }], usage(1500, 1000, 20, 25), 'end_turn'),
    line({ type: 'last-prompt', lastPrompt: 'x', sessionId: SESSION }),
  ].join('');
}

/** A rollout: two model calls (token_usage_record and token_count both present: counted once each), a command. */
function codexRollout(): string {
  const ts = (s: string) => `2026-11-16T08:00:${s}Z`;
  const u = (i: number, c: number, o: number, r: number) => ({ input_tokens: i, cached_input_tokens: c, cache_write_input_tokens: 0, output_tokens: o, reasoning_output_tokens: r, total_tokens: i + o });
  return [
    line({ timestamp: ts('00.000'), type: 'session_meta', payload: { id: THREAD, session_id: THREAD, cli_version: '0.171.0', model_provider: 'mock' } }),
    line({ timestamp: ts('00.010'), type: 'turn_context', payload: { turn_id: 't1', model: 'gpt-5-mock' } }),
    line({ timestamp: ts('00.020'), type: 'event_msg', payload: { type: 'item_completed', item: { type: 'UserMessage', id: 'um-1', content: [{ type: 'text', text: 'list it' }] } } }),
    line({ timestamp: ts('00.100'), type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls /nonexistent-dir"}', call_id: 'call_1' } }),
    line({ timestamp: ts('00.110'), type: 'token_usage_record', payload: { response_id: 'resp_1', usage: u(1200, 300, 40, 8) } }),
    line({ timestamp: ts('00.200'), type: 'event_msg', payload: { type: 'item_completed', item: { type: 'CommandExecution', id: 'call_1', command: ['/bin/bash', '-lc', 'ls /nonexistent-dir'], exit_code: 2, status: 'failed', duration: { secs: 0, nanos: 15_000_000 } } } }),
    line({ timestamp: ts('00.210'), type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_1', output: 'Process exited with code 2\nls: cannot access' } }),
    line({ timestamp: ts('00.220'), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: u(1200, 300, 40, 8), last_token_usage: u(1200, 300, 40, 8) } } }),
    line({ timestamp: ts('00.300'), type: 'token_usage_record', payload: { response_id: 'resp_2', usage: u(1500, 1000, 25, 5) } }),
    line({ timestamp: ts('00.310'), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: u(2700, 1300, 65, 13), last_token_usage: u(1500, 1000, 25, 5) } } }),
    line({ timestamp: ts('00.310'), type: 'event_msg', payload: { type: 'token_count', info: { total_token_usage: u(2700, 1300, 65, 13), last_token_usage: u(1500, 1000, 25, 5) } } }),
  ].join('');
}

function home(): { home: string; claudeDir: string; codexFile: string } {
  const h = tempDir('import-home-');
  const claudeDir = join(h, '.claude', 'projects', '-work');
  mkdirSync(claudeDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(claudeDir, `${SESSION}.jsonl`), claudeTranscript(), { mode: 0o600 });
  const day = join(h, '.codex', 'sessions', '2026', '11', '16');
  mkdirSync(day, { recursive: true, mode: 0o700 });
  const codexFile = join(day, `rollout-2026-11-16T08-00-00-${THREAD}.jsonl`);
  writeFileSync(codexFile, codexRollout(), { mode: 0o600 });
  return { home: h, claudeDir, codexFile };
}

const logIn = () => join(tempDir('import-log-'), 'events.db');
const records = (log: string) => jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
const models = (log: string) => records(log).filter((r) => r.event.action === 'model.invoked');

function importInto(h: string, log: string, ...more: string[]) {
  const r = runBeacon(['import', '--from', h, '--log', log, ...more]);
  assert.equal(r.status, 0, r.stderr);
  return r;
}

describe('beacon import', () => {
  it("records each agent's model calls in disjoint buckets, its prompts and tool calls, with collection method poll", () => {
    const { home: h } = home();
    const log = logIn();
    const r = importInto(h, log);
    assert.match(r.stdout, /claude-code: 1 session file[\s\S]*2026-11: added 6 events \(1 prompt, 3 model calls, 2 tool calls\)/);
    assert.match(r.stdout, /codex: 1 session file[\s\S]*2026-11: added 4 events \(1 prompt, 2 model calls, 1 tool call\)/);
    const all = records(log);
    assert.ok(all.every((x) => x.harness.collection_method === 'poll'));
    const claude = models(log).filter((m) => m.harness.name === 'claude-code');
    // Anthropic's input excludes the cache already: stored as it is
    assert.deepEqual(claude.map((m) => [m.gen_ai.response.id, m.gen_ai.usage.input_tokens, m.gen_ai.usage.cache_read.input_tokens, m.gen_ai.usage.cache_creation.input_tokens, m.gen_ai.usage.output_tokens]), [
      ['msg_1', 1200, 300, 50, 40], ['msg_2', 1200, 300, 50, 40], ['msg_3', 1500, 1000, 20, 25],
    ]);
    assert.equal(claude[0].harness.version, '2.1.197');
    // Codex's input includes cached tokens: the disjoint input is 1200 - 300; token_count's repeats are not calls
    const codex = models(log).filter((m) => m.harness.name === 'codex');
    assert.deepEqual(codex.map((m) => [m.gen_ai.response.id, m.model, m.gen_ai.provider.name, m.gen_ai.usage.input_tokens, m.gen_ai.usage.cache_read.input_tokens, m.gen_ai.usage.output_tokens, m.gen_ai.usage.reasoning.output_tokens]), [
      ['resp_1', 'gpt-5-mock', 'mock', 900, 300, 40, 8], ['resp_2', 'gpt-5-mock', 'mock', 500, 1000, 25, 5],
    ]);
    const failed = all.filter((x) => x.event.action === 'tool.failed');
    assert.deepEqual(failed.map((x) => [x.harness.name, x.command?.exit_code, x.gen_ai.tool.call.id]).sort(), [['claude-code', 2, 'toolu_2'], ['codex', 2, 'call_1']]);
    assert.equal(all.find((x) => x.event.action === 'file.modified')?.file.path, '/home/alice/proj/note.txt');
    const usage = runBeacon(['token-usage', '--log', log, '--since', '2026-11-01', '--json']);
    assert.equal(usage.status, 0, usage.stderr);
  });

  it('a second import adds nothing (it reads nothing: import-cursors.test.ts), and --dry-run then says so', () => {
    const { home: h } = home();
    const log = logIn();
    importInto(h, log);
    const before = readFileSync(log).length > 0 ? records(log) : [];
    const again = importInto(h, log);
    assert.match(again.stdout, /claude-code: 1 session file under [^\n]*: read 0 bytes, 1 file unchanged since the last import\n(?!  2026)/);
    assert.match(again.stdout, /codex: 1 session file under [^\n]*: read 0 bytes, 1 file unchanged since the last import\n(?!  2026)/);
    assert.deepEqual(records(log), before);
    assert.match(importInto(h, log, '--dry-run').stdout, /claude-code: [^\n]*read 0 bytes, 1 file unchanged/);
  });

  it('--dry-run writes nothing and says what would be added per agent and month; --since skips what came before', () => {
    const { home: h } = home();
    const log = logIn();
    const dry = importInto(h, log, '--dry-run');
    assert.match(dry.stdout, /claude-code[\s\S]*2026-11: would add 6 events/);
    assert.equal(existsSync(log), false, 'no log created');
    const since = importInto(h, log, '--since', '2026-11-16T00:00:00Z', 'claude-code', 'codex');
    assert.match(since.stdout, /claude-code[^\n]*\n(?!  2026)/, 'nothing of claude-code (the 15th) imported');
    assert.equal(models(log).length, 2);
  });

  it('secrets in prompts, tool arguments and results are redacted on the way in', () => {
    const { home: h } = home();
    const log = logIn();
    importInto(h, log);
    const db = EventLog.open(log, { readonly: true });
    const stored = db.list().map((r) => r.record).join('\n');
    db.close();
    assert.ok(!stored.includes(SECRET), 'the token is not stored');
    assert.match(records(log).find((x) => x.event.action === 'prompt.submitted' && x.harness.name === 'claude-code').prompt.text, /my token is \[REDACTED\]/);
  });

  it('hostile files: malformed, non-UTF-8 and overlong lines, a symlink, a file others may write — a warning each, the rest imported', () => {
    const { home: h, claudeDir } = home();
    const bad = join(claudeDir, 'bad.jsonl');
    const good = claudeTranscript().split('\n')[6]!.replace(/msg_3/g, 'msg_9').replace(SESSION, 'other-session');
    writeFileSync(bad, Buffer.concat([
      Buffer.from('{not json\n'),
      Buffer.from('{"type":"user","x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n'),
      Buffer.from(`{"type":"user","pad":"${'a'.repeat(33 * 1024 * 1024)}"}\n`),
      Buffer.from(`${good}\n`),
    ]), { mode: 0o600 });
    const outside = join(tempDir('outside-'), 'planted.jsonl');
    writeFileSync(outside, claudeTranscript().replace(SESSION, 'planted-via-link'));
    symlinkSync(outside, join(claudeDir, 'link.jsonl'));
    const writable = join(claudeDir, 'writable.jsonl');
    writeFileSync(writable, claudeTranscript().replace(SESSION, 'planted-writable'));
    chmodSync(writable, 0o666);
    const log = logIn();
    const r = importInto(h, log, 'claude-code');
    assert.match(r.stderr, /bad\.jsonl: 1 line not a JSON object[^\n]*\(first: line 1\)/);
    assert.match(r.stderr, /bad\.jsonl: 1 line not UTF-8, skipped \(first: line 2\)/);
    assert.match(r.stderr, /bad\.jsonl: 1 line longer than 32 MiB, skipped \(first: line 3\)/);
    assert.match(r.stderr, /link\.jsonl: a symbolic link, not followed/);
    assert.match(r.stderr, /writable\.jsonl: other users may write the file \(mode 666\)/);
    const sessions = new Set(records(log).map((x) => x.session?.id));
    assert.deepEqual([...sessions].sort(), ['other-session', SESSION].sort(), "the good line of the bad file is imported; nothing through the link or of the writable file");
  });

  it("a session file another user owns is skipped, with a warning", (t) => {
    if (process.getuid?.() !== 0) return t.skip('needs root to give a file to another user (chown)');
    const { home: h, codexFile } = home();
    chownSync(codexFile, ATTACKER, ATTACKER);
    const log = logIn();
    const r = importInto(h, log, 'codex');
    assert.match(r.stderr, new RegExp(`rollout-[^ ]+\\.jsonl: the file belongs to uid ${ATTACKER}, not to you`));
    assert.equal(existsSync(log) ? records(log).length : 0, 0);
  });

  it('an unknown agent is a usage error naming the known ones', () => {
    const r = runBeacon(['import', 'cluade']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown agent "cluade".*claude/);
  });
});
