/**
 * `beacon import` remembers per session file what it has read (issue 31 item 3; the event log's
 * import_cursors, schema v7): a re-import of unchanged files reads no byte, an appended file is read
 * from where it stopped (Codex's session id and model carried over without re-reading its first
 * lines), a half-written last line waits for its newline, and a truncated or replaced file is read
 * again from its start without a second record of anything.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { listJoined } from '../../src/store/queries/joined-events';
import { jsonl, runBeacon } from '../helpers/daemon';
import { repoRoot, tempDir } from '../helpers/paths';

const SESSION = '5b1f7c1e-2a57-4c3e-9f43-1d2b9e0c7a11';
const THREAD = '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b';
const line = (o: unknown) => `${JSON.stringify(o)}\n`;

const claudeAt = (t: string) => ({ sessionId: SESSION, version: '2.1.197', cwd: '/home/alice/proj', timestamp: `2026-11-20T10:${t}Z` });
const prompt = (t: string, uuid: string, text: string) => line({ ...claudeAt(t), type: 'user', uuid, message: { role: 'user', content: text } });
const answer = (t: string, id: string, content: unknown[], input: number) =>
  line({ ...claudeAt(t), type: 'assistant', uuid: `a-${id}`, message: { id, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content, stop_reason: 'end_turn', usage: { input_tokens: input, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } });
const toolResult = (t: string, uuid: string, id: string, text: string) => line({ ...claudeAt(t), type: 'user', uuid, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] } });

const codexAt = (s: string) => `2026-11-21T08:00:${s}Z`;
const codexUsage = (i: number) => ({ input_tokens: i, cached_input_tokens: 0, cache_write_input_tokens: 0, output_tokens: 5, reasoning_output_tokens: 0, total_tokens: i + 5 });
const codexTurn = (s: string, n: number) => [
  line({ timestamp: codexAt(`${s}.000`), type: 'turn_context', payload: { turn_id: `t${n}`, model: 'gpt-5-mock' } }),
  line({ timestamp: codexAt(`${s}.010`), type: 'event_msg', payload: { type: 'item_completed', item: { type: 'UserMessage', id: `um-${n}`, content: [{ type: 'text', text: `turn ${n}` }] } } }),
  line({ timestamp: codexAt(`${s}.100`), type: 'token_usage_record', payload: { response_id: `resp_${n}`, usage: codexUsage(1000 + n) } }),
].join('');

function home() {
  const h = tempDir('cursor-home-');
  const dir = join(h, '.claude', 'projects', '-work');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const claude = join(dir, `${SESSION}.jsonl`);
  writeFileSync(claude, prompt('00:00.000', 'u-1', 'first') + answer('00:01.000', 'msg_1', [{ type: 'text', text: 'one' }], 100) + prompt('00:02.000', 'u-2', 'second'), { mode: 0o600 });
  const day = join(h, '.codex', 'sessions', '2026', '11', '21');
  mkdirSync(day, { recursive: true, mode: 0o700 });
  const codex = join(day, `rollout-2026-11-21T08-00-00-${THREAD}.jsonl`);
  writeFileSync(codex, line({ timestamp: codexAt('00.000'), type: 'session_meta', payload: { id: THREAD, cli_version: '0.171.0', model_provider: 'mock' } }) + codexTurn('01', 1), { mode: 0o600 });
  return { home: h, claude, codex, log: join(tempDir('cursor-log-'), 'events.db') };
}

function importOnce(h: string, log: string, ...more: string[]) {
  const r = runBeacon(['import', '--from', h, '--log', log, ...more]);
  assert.equal(r.status, 0, r.stderr);
  return r;
}

/** The bytes the import says it read of one agent's store. */
function bytesRead(stdout: string, agent: string): number {
  const m = new RegExp(`^${agent}: [^\\n]*: read ([\\d,]+) bytes?`, 'm').exec(stdout);
  assert.ok(m, `no byte count for ${agent} in: ${stdout}`);
  return Number(m[1]!.replace(/,/g, ''));
}

const records = (log: string) => jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
const ids = (log: string) => records(log).map((r) => r.event.id).sort();

describe('beacon import: file cursors', () => {
  it('a re-import of unchanged files reads no byte of them', () => {
    const { home: h, claude, codex, log } = home();
    const first = importOnce(h, log);
    assert.equal(bytesRead(first.stdout, 'claude-code'), statSync(claude).size);
    assert.equal(bytesRead(first.stdout, 'codex'), statSync(codex).size);
    const again = importOnce(h, log);
    assert.equal(bytesRead(again.stdout, 'claude-code'), 0);
    assert.equal(bytesRead(again.stdout, 'codex'), 0);
    assert.match(again.stdout, /1 file unchanged since the last import/);
    assert.equal(records(log).length, 5);
  });

  it('an appended file is read from where it stopped; a Codex turn keeps the session and model its first lines gave', () => {
    const { home: h, claude, codex, log } = home();
    importOnce(h, log);
    const codexBefore = statSync(codex).size;
    const more = codexTurn('09', 2);
    appendFileSync(codex, more);
    const claudeMore = answer('00:03.000', 'msg_2', [{ type: 'text', text: 'two' }], 200) + prompt('00:04.000', 'u-3', 'third');
    appendFileSync(claude, claudeMore);
    const r = importOnce(h, log);
    // Codex's reader held nothing pending at the end: exactly the new turn is read
    assert.equal(bytesRead(r.stdout, 'codex'), statSync(codex).size - codexBefore);
    assert.equal(bytesRead(r.stdout, 'codex'), Buffer.byteLength(more));
    // Claude Code's last line was a prompt, complete: only the appended lines are read
    assert.equal(bytesRead(r.stdout, 'claude-code'), Buffer.byteLength(claudeMore));
    assert.match(r.stdout, /claude-code[^\n]*\n  2026-11: added 2 events \(1 prompt, 1 model call\), 0 already recorded/);
    assert.match(r.stdout, /codex[^\n]*\n  2026-11: added 2 events \(1 prompt, 1 model call\), 0 already recorded/);
    const turn2 = records(log).find((x) => x.gen_ai?.response?.id === 'resp_2');
    assert.deepEqual([turn2.session.id, turn2.model, turn2.gen_ai.provider.name, turn2.harness.version, turn2.gen_ai.usage.input_tokens], [THREAD, 'gpt-5-mock', 'mock', '0.171.0', 1002]);
    assert.equal(records(log).length, 9);
  });

  it("Copilot CLI's events.jsonl is read from where it stopped, its session and version carried over; a tool call waiting for its result is read again with it", () => {
    const h = tempDir('cursor-copilot-');
    const dir = join(h, '.copilot', 'session-state', 'f85f4dcf-2aa5-4c0c-9bc4-779fe0aa71a0');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, 'events.jsonl');
    const at = (s: string) => `2026-11-22T09:00:${s}.000Z`;
    const ev = (s: string, type: string, data: unknown) => line({ type, data, id: `${type}-${s}`, timestamp: at(s), parentId: null });
    const usage = (s: string, n: number) => ev(s, 'session.usage_record', { usage: { model: 'gpt-4.1', inputTokens: 900 + n, outputTokens: 40, cacheReadTokens: 300, cacheWriteTokens: 0, reasoningTokens: 0, apiCallId: `chatcmpl-${n}`, providerType: 'openai' } });
    const start = ev('00', 'session.start', { sessionId: 'f85f4dcf-2aa5-4c0c-9bc4-779fe0aa71a0', copilotVersion: '1.0.102', selectedModel: 'gpt-4.1' });
    writeFileSync(file, start + ev('01', 'user.message', { content: 'first', messageId: 'm1' }) + usage('02', 1), { mode: 0o600 });
    const log = join(tempDir('cursor-log-'), 'events.db');
    importOnce(h, log);
    const request = ev('03', 'assistant.message', { toolRequests: [{ toolCallId: 'call_1', name: 'bash', arguments: { command: 'ls /nope' } }] });
    appendFileSync(file, usage('04', 2));
    let r = importOnce(h, log);
    assert.equal(bytesRead(r.stdout, 'copilot-cli'), Buffer.byteLength(usage('04', 2)), 'only the appended line');
    const second = records(log).find((x) => x.gen_ai?.response?.id === 'chatcmpl-2');
    assert.deepEqual([second.session.id, second.harness.version], ['f85f4dcf-2aa5-4c0c-9bc4-779fe0aa71a0', '1.0.102']);
    // a tool call waiting for its result holds the resume point: its request line is read again with the result
    const done = ev('05', 'tool.execution_complete', { toolCallId: 'call_1', success: false, shellExecution: { exitCode: 2 }, result: { content: 'ls: cannot access' } });
    appendFileSync(file, request);
    appendFileSync(file, done);
    r = importOnce(h, log);
    assert.equal(bytesRead(r.stdout, 'copilot-cli'), Buffer.byteLength(request + done));
    const db = EventLog.open(log, { readonly: true });
    const calls = listJoined(db, { sessionId: 'f85f4dcf-2aa5-4c0c-9bc4-779fe0aa71a0' }).filter((x) => x.kind === 'tool_call');
    db.close();
    assert.equal(calls.length, 1, `${calls.length} tool rows`);
    assert.ok(records(log).some((x) => x.event.action === 'tool.failed' && x.command?.exit_code === 2));
    assert.equal(records(log).filter((x) => x.event.action === 'model.invoked').length, 2);
  });

  it('a message whose last line may still come, and a tool call waiting for its result, are read again from their first line', () => {
    const { home: h, claude, log } = home();
    const use = line({ ...claudeAt('00:05.000'), type: 'assistant', uuid: 'a-w', message: { id: 'msg_w', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 'toolu_w', name: 'Write', input: { file_path: '/home/alice/proj/a.txt', content: 'a' } }], stop_reason: 'tool_use', usage: { input_tokens: 300, output_tokens: 9, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } });
    appendFileSync(claude, use);
    importOnce(h, log);
    const pending = records(log).filter((x) => x.gen_ai?.tool?.call?.id === 'toolu_w');
    assert.equal(pending.length, 1, 'the call is recorded as far as it is known');
    assert.equal(pending[0].gen_ai.tool.call.result, undefined);
    const result = toolResult('00:06.000', 'u-w', 'toolu_w', 'File created successfully');
    appendFileSync(claude, result);
    const r = importOnce(h, log);
    assert.equal(bytesRead(r.stdout, 'claude-code'), Buffer.byteLength(use) + Buffer.byteLength(result), 'from the tool_use line on, not from the start');
    const calls = records(log).filter((x) => x.gen_ai?.tool?.call?.id === 'toolu_w');
    assert.equal(calls.length, 1, 'one record of the call');
    assert.equal(calls[0].gen_ai.tool.call.result, 'File created successfully');
    assert.equal(records(log).filter((x) => x.gen_ai?.response?.id === 'msg_w').length, 1);
  });

  it("Qwen Code's chat file is read from its last complete call on, not again from its start (the reader settles as it reads)", () => {
    const lines = readFileSync(join(repoRoot(), 'test', 'fixtures', 'stores', 'qwen-code.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => `${l}\n`);
    const h = tempDir('cursor-qwen-');
    const dir = join(h, '.qwen', 'projects', '-home-alice-proj', 'chats');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, '333c3569-1f4d-4ff8-9b6b-a445b94c5359.jsonl');
    const cut = lines.findIndex((l) => l.includes('"response_id":"chatcmpl-beacon-0002"')) + 1; // call 1 whole, call 2's copy read
    writeFileSync(file, lines.slice(0, cut).join(''), { mode: 0o600 });
    const log = join(tempDir('cursor-log-'), 'events.db');
    importOnce(h, log, 'qwen');
    const more = lines.slice(cut).join('');
    appendFileSync(file, more);
    const r = importOnce(h, log, 'qwen');
    assert.equal(bytesRead(r.stdout, 'qwen-code'), Buffer.byteLength(more), 'only the appended lines');
    assert.match(r.stdout, /qwen-code[^\n]*\n  2026-12: added 2 events \(1 model call, 1 tool call\), 0 already recorded/);
    assert.equal(records(log).filter((x) => x.event.action === 'model.invoked').length, 3);
  });

  it('a half-written last line waits for its newline, then is read once', () => {
    const { home: h, claude, log } = home();
    importOnce(h, log);
    const whole = prompt('00:07.000', 'u-half', 'half then whole');
    appendFileSync(claude, whole.slice(0, 40));
    const half = importOnce(h, log, 'claude-code');
    assert.match(half.stderr, /its last line has no end yet/);
    assert.doesNotMatch(half.stderr, /not a JSON object/);
    assert.equal(records(log).length, 5);
    appendFileSync(claude, whole.slice(40));
    const done = importOnce(h, log, 'claude-code');
    assert.equal(bytesRead(done.stdout, 'claude-code'), Buffer.byteLength(whole), 'the line from its start, once whole');
    assert.equal(records(log).filter((x) => x.prompt?.text === 'half then whole').length, 1);
    assert.equal(records(log).length, 6);
  });

  it('a truncated or replaced file is read again from its start, adding nothing twice', () => {
    const { home: h, claude, log } = home();
    importOnce(h, log);
    const before = ids(log);
    const head = prompt('00:00.000', 'u-1', 'first') + answer('00:01.000', 'msg_1', [{ type: 'text', text: 'one' }], 100);
    writeFileSync(claude, head); // truncated in place (same inode, smaller)
    const cut = importOnce(h, log, 'claude-code');
    assert.equal(bytesRead(cut.stdout, 'claude-code'), Buffer.byteLength(head));
    assert.match(cut.stdout, /added 0 events, 2 already recorded/);
    const replacement = `${claude}.new`;
    writeFileSync(replacement, head + prompt('00:02.000', 'u-2', 'second') + prompt('00:08.000', 'u-9', 'after the rename'), { mode: 0o600 });
    renameSync(replacement, claude); // replaced: another inode, larger than the cursor's size
    const swapped = importOnce(h, log, 'claude-code');
    assert.equal(bytesRead(swapped.stdout, 'claude-code'), statSync(claude).size);
    assert.match(swapped.stdout, /added 1 event \(1 prompt\), 3 already recorded/);
    assert.deepEqual(ids(log).filter((id) => !before.includes(id)).length, 1);
  });
});
