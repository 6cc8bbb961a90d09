/**
 * An import of a session the agent is still in the middle of (issue 31): the store's last tool call
 * has its request and no result yet, so `beacon import` records it as far as it is known; the next
 * import, once the result is written, completes that record. One row per call, whatever the call's
 * outcome — a failure's record has another id than the outcome-less one (its action is in the id),
 * and took its place only once call-join.ts linked the two.
 *
 * One case per JSON-lines reader that hands out a call without its result at the file's end: the
 * files of Copilot CLI, Qwen Code and Gemini CLI are their real CLIs' (test/fixtures/stores/, the
 * failing `ls /nonexistent-dir`), Claude Code's, Codex's and Pi's the shapes their tests build. Each
 * file is cut before the second line naming the failing call's id (the first is its request), and
 * the rest appended for the second import. Cline's reader and the database readers (opencode, goose)
 * record no call before its result: store-follow.test.ts and import-databases.test.ts hold them.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toRows } from '../../src/ingest/rows';
import { piStore } from '../../src/sources/pi/store-pi';
import { EventLog } from '../../src/store/log/event-log';
import { jsonl, runBeacon } from '../helpers/daemon';
import { repoRoot, tempDir } from '../helpers/paths';

const line = (o: unknown) => JSON.stringify(o);
const fixtureLines = (name: string) => readFileSync(join(repoRoot(), 'test', 'fixtures', 'stores', name), 'utf8').split('\n').filter(Boolean);

function claudeLines(): string[] {
  const base = (t: string) => ({ sessionId: '5b1f7c1e-2a57-4c3e-9f43-1d2b9e0c7a11', version: '2.1.197', cwd: '/home/alice/proj', timestamp: `2026-11-20T10:00:${t}Z` });
  const usage = { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  return [
    line({ ...base('00.000'), type: 'user', uuid: 'u-1', message: { role: 'user', content: 'list the missing directory' } }),
    line({ ...base('01.000'), type: 'assistant', uuid: 'a-1', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'ls /nonexistent-dir' } }], stop_reason: 'tool_use', usage } }),
    line({ ...base('01.500'), type: 'user', uuid: 'u-2', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: "Exit code 2\nls: cannot access '/nonexistent-dir': No such file or directory", is_error: true }] } }),
  ];
}

function codexLines(): string[] {
  const ts = (s: string) => `2026-11-16T08:00:${s}Z`;
  const u = { input_tokens: 1200, cached_input_tokens: 300, cache_write_input_tokens: 0, output_tokens: 40, reasoning_output_tokens: 8, total_tokens: 1240 };
  const thread = '019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b';
  return [
    line({ timestamp: ts('00.000'), type: 'session_meta', payload: { id: thread, session_id: thread, cli_version: '0.171.0', model_provider: 'mock' } }),
    line({ timestamp: ts('00.010'), type: 'turn_context', payload: { turn_id: 't1', model: 'gpt-5-mock' } }),
    line({ timestamp: ts('00.100'), type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"ls /nonexistent-dir"}', call_id: 'call_1' } }),
    line({ timestamp: ts('00.110'), type: 'token_usage_record', payload: { response_id: 'resp_1', usage: u } }),
    line({ timestamp: ts('00.200'), type: 'event_msg', payload: { type: 'item_completed', item: { type: 'CommandExecution', id: 'call_1', command: ['/bin/bash', '-lc', 'ls /nonexistent-dir'], exit_code: 2, status: 'failed', duration: { secs: 0, nanos: 15_000_000 } } } }),
    line({ timestamp: ts('00.210'), type: 'response_item', payload: { type: 'function_call_output', call_id: 'call_1', output: "Process exited with code 2\nls: cannot access '/nonexistent-dir': No such file or directory" } }),
  ];
}

function piLines(): string[] {
  const usage = { input: 900, output: 40, cacheRead: 300, cacheWrite: 0, totalTokens: 1240, cost: { total: 0 } };
  return [
    line({ type: 'session', version: 3, id: '01a23692-eeb1-7072-a13b-f73fef853377', timestamp: '2026-12-02T11:45:28.757Z', cwd: '/w' }),
    line({ type: 'message', id: 'a2e456cb', parentId: null, timestamp: '2026-12-02T11:45:29.331Z', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'call_2', name: 'bash', arguments: { command: 'ls /nonexistent-dir' } }], provider: 'mock', model: 'mock-model', usage, stopReason: 'toolUse', responseId: 'chatcmpl-1' } }),
    line({ type: 'message', id: '3e25950c', parentId: 'a2e456cb', timestamp: '2026-12-02T11:45:29.415Z', message: { role: 'toolResult', toolCallId: 'call_2', toolName: 'bash', content: [{ type: 'text', text: "ls: cannot access '/nonexistent-dir': No such file or directory\n\n\nCommand exited with code 2" }], isError: true } }),
  ];
}

/**
 * Gemini CLI 0.61 wrote this message once, its call done; the reader also takes a message written
 * while its call runs (`status: executing`, no result) and its later write under the same id: that
 * write is put before the real one here.
 */
function geminiLines(): string[] {
  const lines = fixtureLines('gemini-cli.jsonl');
  const at = lines.findIndex((l) => l.includes('run_shell_command__call_beacon_0002'));
  const m = JSON.parse(lines[at]!);
  const running = { ...m, toolCalls: m.toolCalls.map((c: Record<string, unknown>) => ({ ...c, status: 'executing', result: undefined, resultDisplay: undefined })) };
  return [...lines.slice(0, at), line(running), ...lines.slice(at)];
}

interface Case {
  agent: string;
  /** where the agent keeps this session, under its home */
  file: string;
  lines: string[];
  callId: string;
  exitCode?: number;
}

const CASES: Case[] = [
  { agent: 'claude-code', file: '.claude/projects/-work/5b1f7c1e-2a57-4c3e-9f43-1d2b9e0c7a11.jsonl', lines: claudeLines(), callId: 'toolu_2', exitCode: 2 },
  { agent: 'codex', file: '.codex/sessions/2026/11/16/rollout-2026-11-16T08-00-00-019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b.jsonl', lines: codexLines(), callId: 'call_1', exitCode: 2 },
  { agent: 'gemini-cli', file: '.gemini/tmp/proj/chats/session-2026-12-02T03-18-52d35956.jsonl', lines: geminiLines(), callId: 'run_shell_command__call_beacon_0002', exitCode: 2 },
  { agent: 'qwen-code', file: '.qwen/projects/-home-alice-proj/chats/333c3569-1f4d-4ff8-9b6b-a445b94c5359.jsonl', lines: fixtureLines('qwen-code.jsonl'), callId: 'call_beacon_0002', exitCode: 2 },
  { agent: 'copilot-cli', file: '.copilot/session-state/f85f4dcf-2aa5-4c0c-9bc4-779fe0aa71a0/events.jsonl', lines: fixtureLines('copilot-cli.jsonl'), callId: 'call_beacon_0002', exitCode: 2 },
  { agent: 'pi', file: '.pi/agent/sessions/--w--/2026-12-02T11-45-28-757Z_01a23692-eeb1-7072-a13b-f73fef853377.jsonl', lines: piLines(), callId: 'call_2' },
];

function importAgent(home: string, log: string, agent: string): void {
  const r = runBeacon(['import', agent, '--from', home, '--log', log]);
  assert.equal(r.status, 0, r.stderr);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const callRows = (log: string, callId: string): any[] => jsonl(runBeacon(['events', '--log', log, '--json']).stdout).filter((r) => r.gen_ai?.tool?.call?.id === callId);

describe('beacon import of a session mid-call, then again once the call failed', () => {
  for (const c of CASES) {
    it(`${c.agent}: one row for the call, the failure replacing what the first import knew`, () => {
      const home = tempDir(`live-${c.agent}-`);
      const file = join(home, c.file);
      mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
      const mentions = c.lines.flatMap((l, i) => (l.includes(c.callId) ? [i] : []));
      assert.ok(mentions.length >= 2, `${c.agent}: the request and a later line name ${c.callId}`);
      const cut = mentions[1]!;
      writeFileSync(file, c.lines.slice(0, cut).map((l) => `${l}\n`).join(''), { mode: 0o600 });
      const log = join(tempDir('live-log-'), 'events.db');

      importAgent(home, log, c.agent);
      const first = callRows(log, c.callId);
      assert.equal(first.length, 1, 'mid-call: the call as far as it is known');
      assert.notEqual(first[0].event.action, 'tool.failed');
      assert.equal(first[0].gen_ai.tool.call.result, undefined);

      appendFileSync(file, c.lines.slice(cut).map((l) => `${l}\n`).join(''));
      importAgent(home, log, c.agent);
      const after = callRows(log, c.callId);
      assert.deepEqual(after.map((r) => r.event.action), ['tool.failed'], `${after.length} rows for ${c.callId}: ${after.map((r) => r.event.action).join(', ')}`);
      assert.match(String(after[0].gen_ai.tool.call.result), /No such file or directory/);
      if (c.exitCode !== undefined) assert.equal(after[0].command?.exit_code, c.exitCode);

      importAgent(home, log, c.agent);
      assert.equal(callRows(log, c.callId).length, 1, 'a third import adds nothing');
    });
  }
});

describe('a call read both ways, the failure first (two imports racing: the follow and a one-shot import)', () => {
  it('the outcome-less record of a call whose failure is stored adds nothing', () => {
    const read = (lines: string[]) => {
      const reader = piStore.reader('f.jsonl');
      const events = [...lines.flatMap((l) => reader.line(JSON.parse(l))), ...reader.end()].filter((e) => e.record.gen_ai?.tool?.call?.id === 'call_2');
      for (const e of events) e.mergeWithStored = true; // as the importer marks them
      return toRows(events).rows;
    };
    const failed = read(piLines());
    const pending = read(piLines().slice(0, 2));
    assert.deepEqual([failed[0]!.action, pending[0]!.action], ['tool.failed', 'command.executed']);
    const log = EventLog.open(join(tempDir('live-race-'), 'events.db'));
    try {
      assert.equal(log.append(failed).inserted, 1);
      const late = log.append(pending, true);
      assert.deepEqual([late.inserted, late.held], [0, [true]]);
      assert.deepEqual(log.listIndexed({ toolCallId: 'call_2' }).map((r) => r.action), ['tool.failed']);
    } finally {
      log.close();
    }
  });
});
