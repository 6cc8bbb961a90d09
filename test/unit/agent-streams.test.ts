/**
 * Each agent's stream parser on small lines cut from what its real CLI printed on the agents lab's
 * two-tool script (write a file, then run `ls /nonexistent-dir`, which exits 2): the harness events
 * in order, the tool events with their command and failure, the session id, the run's usage in
 * Beacon's disjoint buckets, and a malformed line and an unknown record type kept as `unknown`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StreamEvent } from '../../src/model/harness-event';
import { STREAM_ADAPTERS, streamAdapter } from '../../src/sources/stream-registry';

const SID = '90f9d363-15fd-484b-ac4c-7201692138d8';
const j = (o: unknown) => JSON.stringify(o);

function parse(platform: string, lines: string[]): StreamEvent[] {
  const parser = streamAdapter(platform)!.createParser({});
  return [...lines.flatMap((l) => parser.line(l)), ...parser.end()];
}
const harness = (evs: StreamEvent[]) => evs.flatMap((e) => (e.harness ? [e.harness] : []));
const types = (evs: StreamEvent[]) => harness(evs).map((h) => h.type);
const runUsage = (evs: StreamEvent[]) => evs.filter((e) => e.detail.usageReport?.scope === 'run').map((e) => e.detail.usageReport!.usage);
const records = (platform: string, evs: StreamEvent[]) => evs.flatMap((e) => streamAdapter(platform)!.record(e, { sessionId: SID, runId: 'r1' }) ?? []).map((r) => r.record);

const BAD = ['{"type":"assistant","message":', j({ type: 'brand_new_record', x: 1 })];

describe('beacon stream: every agent through one registry', () => {
  it('lists goose and the other agents, each once', () => {
    assert.deepEqual(STREAM_ADAPTERS.map((a) => a.platform), ['goose', 'claude-code', 'codex', 'gemini-cli', 'qwen-code', 'opencode', 'copilot-cli', 'cline', 'pi']);
  });
});

describe('claude-code stream-json', () => {
  const lines = [
    j({ type: 'system', subtype: 'init', cwd: '/w', session_id: SID, model: 'claude-sonnet-4-5', tools: ['Bash', 'Write'] }),
    j({ type: 'assistant', message: { id: 'msg_beacon_0001', model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_beacon_0001', name: 'Write', input: { file_path: '/w/note.txt', content: 'hello\n' } }], usage: { input_tokens: 1200, cache_creation_input_tokens: 50, cache_read_input_tokens: 300, output_tokens: 1 } }, session_id: SID }),
    j({ type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_beacon_0001', type: 'tool_result', content: 'File created successfully at: /w/note.txt' }] }, session_id: SID, timestamp: '2026-12-02T00:07:05.571Z' }),
    j({ type: 'assistant', message: { id: 'msg_beacon_0002', role: 'assistant', content: [{ type: 'thinking', thinking: 'List it.' }, { type: 'tool_use', id: 'toolu_beacon_0002', name: 'Bash', input: { command: 'touch x && ls /nonexistent-dir' } }], usage: { input_tokens: 1200, output_tokens: 1 } }, session_id: SID }),
    j({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', content: "Exit code 2\nls: cannot access '/nonexistent-dir': No such file or directory", is_error: true, tool_use_id: 'toolu_beacon_0002' }] }, session_id: SID, timestamp: '2026-12-02T00:07:05.785Z' }),
    j({ type: 'assistant', message: { id: 'msg_beacon_0003', role: 'assistant', content: [{ type: 'text', text: 'The command printed beacon-lab. Done.' }], usage: { input_tokens: 1500, output_tokens: 1 } }, session_id: SID }),
    ...BAD,
    j({ type: 'result', subtype: 'success', is_error: false, num_turns: 3, session_id: SID, total_cost_usd: 0.014205, usage: { input_tokens: 3900, cache_creation_input_tokens: 120, cache_read_input_tokens: 1600, output_tokens: 105 }, modelUsage: { 'claude-sonnet-4-5': {} } }),
  ];

  it('maps the run onto harness events in order, the failed Bash with its exit code from the result text', () => {
    const evs = parse('claude-code', lines);
    assert.deepEqual(types(evs), ['write', 'reasoning', 'command', 'agent', 'unknown', 'unknown']);
    const h = harness(evs);
    assert.ok(h.every((e) => e.sessionId === SID), 'the session id of the init line');
    assert.deepEqual(h[2], { timestamp: '2026-12-02T00:07:05.785Z', sessionId: SID, type: 'command', command: 'touch x && ls /nonexistent-dir', exitCode: 2, isSuccess: false });
    assert.equal((h[4] as { raw: unknown }).raw, '{"type":"assistant","message":');
    assert.deepEqual((h[5] as { raw: unknown }).raw, { type: 'brand_new_record', x: 1 });
  });

  it('counts the result line (Anthropic values: input without the cache) and never the per-message placeholder output of 1', () => {
    const evs = parse('claude-code', lines);
    assert.deepEqual(runUsage(evs), [{ input_tokens: 3900, output_tokens: 105, cache_read: { input_tokens: 1600 }, cache_creation: { input_tokens: 120 }, cost_usd: 0.014205 }]);
    assert.equal(evs.filter((e) => e.detail.usageReport?.scope === 'call').length, 0);
    const recs = records('claude-code', evs);
    assert.deepEqual(recs.map((r) => r.event.action), ['file.modified', 'agent.reasoning', 'tool.failed', 'agent.message', 'agent.unknown', 'agent.unknown', 'usage.reported']);
    assert.ok(recs.every((r) => r.harness.name === 'claude-code' && r.harness.collection_method === 'stream' && r.session?.id === SID));
    assert.equal(recs[2]!.command?.exit_code, 2);
    assert.equal(recs[6]!.model, 'claude-sonnet-4-5');
  });
});

describe('codex exec --json', () => {
  const T = '01a2342f-8695-7d53-9e16-2dd95cd34295';
  const lines = [
    j({ type: 'thread.started', thread_id: T }),
    j({ type: 'item.completed', item: { id: 'item_0', type: 'error', message: 'Model metadata for `gpt-5-mock` not found.' } }),
    j({ type: 'turn.started' }),
    j({ type: 'item.started', item: { id: 'item_1', type: 'command_execution', command: `/bin/bash -lc "printf '%s' 'hello' > '/w/note.txt'"`, aggregated_output: '', exit_code: null, status: 'in_progress' } }),
    j({ type: 'item.completed', item: { id: 'item_1', type: 'command_execution', command: `/bin/bash -lc "printf '%s' 'hello' > '/w/note.txt'"`, aggregated_output: '', exit_code: 0, status: 'completed' } }),
    j({ type: 'item.started', item: { id: 'item_2', type: 'command_execution', command: "/bin/bash -lc 'touch x && ls /nonexistent-dir'", exit_code: null, status: 'in_progress' } }),
    j({ type: 'item.completed', item: { id: 'item_2', type: 'command_execution', command: "/bin/bash -lc 'touch x && ls /nonexistent-dir'", aggregated_output: 'ls: cannot access', exit_code: 2, status: 'failed' } }),
    j({ type: 'item.completed', item: { id: 'item_3', type: 'reasoning', text: 'Done listing.' } }),
    j({ type: 'item.completed', item: { id: 'item_4', type: 'agent_message', text: 'The command printed beacon-lab. Done.' } }),
    ...BAD,
    j({ type: 'turn.completed', usage: { input_tokens: 3900, cached_input_tokens: 1600, cache_write_input_tokens: 0, output_tokens: 105, reasoning_output_tokens: 21 } }),
  ];

  it('maps items onto harness events, the commands unwrapped from bash -lc, the failure from status and exit code', () => {
    const evs = parse('codex', lines);
    assert.deepEqual(types(evs), ['error', 'command', 'command', 'reasoning', 'agent', 'unknown', 'unknown']);
    const h = harness(evs);
    assert.ok(h.every((e) => e.sessionId === T), 'the thread id is the session id');
    assert.deepEqual(h.slice(1, 3).map((e) => e.type === 'command' && [e.command, e.exitCode, e.isSuccess]), [[`printf '%s' 'hello' > '/w/note.txt'`, 0, true], ['touch x && ls /nonexistent-dir', 2, false]]);
  });

  it('records the turn usage (input includes cached, output includes reasoning) as the run report', () => {
    const evs = parse('codex', lines);
    assert.deepEqual(runUsage(evs), [{ input_tokens: 2300, output_tokens: 105, cache_read: { input_tokens: 1600 }, reasoning: { output_tokens: 21 } }]);
    assert.deepEqual(records('codex', evs).map((r) => r.event.action), ['agent.error', 'command.executed', 'tool.failed', 'agent.reasoning', 'agent.message', 'agent.unknown', 'agent.unknown', 'usage.reported']);
  });
});

describe('gemini-cli stream-json', () => {
  const G = '3d1efdda-28aa-420b-9f7a-cff43799b245';
  const lines = [
    j({ type: 'init', timestamp: '2026-12-02T00:30:05.802Z', session_id: G, model: 'gemini-2.5-flash' }),
    j({ type: 'message', timestamp: '2026-12-02T00:30:05.804Z', role: 'user', content: 'Write the note.' }),
    j({ type: 'message', timestamp: '2026-12-02T00:30:05.900Z', role: 'assistant', content: 'I will ', delta: true }),
    j({ type: 'message', timestamp: '2026-12-02T00:30:05.901Z', role: 'assistant', content: 'I will write it.', delta: true }),
    j({ type: 'tool_use', timestamp: '2026-12-02T00:30:05.931Z', tool_name: 'write_file', tool_id: 'write_file__call_beacon_0001', parameters: { file_path: '/w/note.txt', content: 'hello\n' } }),
    j({ type: 'tool_result', timestamp: '2026-12-02T00:30:06.023Z', tool_id: 'write_file__call_beacon_0001', status: 'success' }),
    j({ type: 'tool_use', timestamp: '2026-12-02T00:30:06.097Z', tool_name: 'run_shell_command', tool_id: 'run_shell_command__call_beacon_0002', parameters: { command: 'touch x && ls /nonexistent-dir' } }),
    j({ type: 'tool_result', timestamp: '2026-12-02T00:30:06.155Z', tool_id: 'run_shell_command__call_beacon_0002', status: 'success', output: "ls: cannot access '/nonexistent-dir'" }),
    j({ type: 'message', timestamp: '2026-12-02T00:30:06.313Z', role: 'assistant', content: 'The command printed beacon-lab. Done.', delta: true }),
    ...BAD,
    j({ type: 'result', timestamp: '2026-12-02T00:30:06.315Z', status: 'success', stats: { total_tokens: 4026, input_tokens: 3900, output_tokens: 105, cached: 1600, input: 2300, tool_calls: 2, models: { 'gemini-2.5-flash': {} } } }),
  ];

  it('concatenates the text deltas into one message per turn, and reports what Gemini says of the failed command (success, no exit code)', () => {
    const evs = parse('gemini-cli', lines);
    assert.deepEqual(types(evs), ['agent', 'write', 'command', 'agent', 'unknown', 'unknown']);
    const h = harness(evs);
    assert.deepEqual(h[0], { timestamp: '2026-12-02T00:30:05.900Z', sessionId: G, type: 'agent', message: 'I will I will write it.' });
    assert.deepEqual(h[2], { timestamp: '2026-12-02T00:30:06.097Z', sessionId: G, type: 'command', command: 'touch x && ls /nonexistent-dir', isSuccess: true });
  });

  it('records the result stats: input includes cached, output excludes thoughts, thoughts implied by the total', () => {
    assert.deepEqual(runUsage(parse('gemini-cli', lines)), [{ input_tokens: 2300, output_tokens: 126, cache_read: { input_tokens: 1600 }, reasoning: { output_tokens: 21 } }]);
  });
});

describe('qwen-code stream-json', () => {
  const Q = '7b364ea6-4b24-40ea-9793-6996dc782a24';
  const lines = [
    j({ type: 'system', subtype: 'init', uuid: Q, session_id: Q, cwd: '/w', model: 'qwen3-coder-mock' }),
    j({ type: 'assistant', session_id: Q, message: { id: 'aed3b06b', role: 'assistant', model: 'qwen3-coder-mock', content: [{ type: 'tool_use', id: 'call_beacon_0001', name: 'write_file', input: { file_path: '/w/note.txt', content: 'hello\n' } }], usage: { input_tokens: 1200, output_tokens: 40, cache_read_input_tokens: 300 } } }),
    j({ type: 'user', session_id: Q, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_beacon_0001', is_error: false, content: 'Successfully created' }] } }),
    j({ type: 'assistant', session_id: Q, message: { id: '91dccff2', role: 'assistant', content: [{ type: 'tool_use', id: 'call_beacon_0002', name: 'run_shell_command', input: { command: 'touch x && ls /nonexistent-dir' } }] } }),
    j({ type: 'user', session_id: Q, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_beacon_0002', is_error: false, content: "ls: cannot access '/nonexistent-dir'" }] } }),
    j({ type: 'user', session_id: Q, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_never_asked', content: 'x' }] } }),
    j({ type: 'assistant', session_id: Q, message: { id: '0d57b914', role: 'assistant', content: [{ type: 'text', text: 'The command printed beacon-lab. Done.' }] } }),
    ...BAD,
    j({ type: 'result', subtype: 'success', session_id: Q, is_error: false, num_turns: 3, usage: { input_tokens: 3900, output_tokens: 105, cache_read_input_tokens: 1600, total_tokens: 4005 } }),
  ];

  it('reads the Claude-shaped lines with OpenAI meanings; a result without its request is unknown', () => {
    const evs = parse('qwen-code', lines);
    assert.deepEqual(types(evs), ['write', 'command', 'unknown', 'agent', 'unknown', 'unknown']);
    assert.ok(harness(evs).every((e) => e.sessionId === Q));
    assert.deepEqual(runUsage(evs), [{ input_tokens: 2300, output_tokens: 105, cache_read: { input_tokens: 1600 } }]);
  });
});

describe('copilot-cli --output-format json', () => {
  const C = '06704780-11bc-439d-b267-94364c462ebc';
  const ev = (type: string, data: unknown, extra: object = {}) => j({ type, data, id: `e-${type}`, timestamp: '2026-12-02T01:12:02.615Z', ...extra });
  const lines = [
    ev('session.tools_updated', { model: 'gpt-4.1' }, { ephemeral: true }),
    ev('user.message', { content: 'Write the note.' }),
    ev('assistant.message', { messageId: 'm1', model: 'gpt-4.1', content: '', toolRequests: [{ toolCallId: 'call_beacon_0001', name: 'create', arguments: { path: '/w/note.txt', file_text: 'hello\n' } }] }),
    ev('tool.execution_complete', { toolCallId: 'call_beacon_0001', success: true, fileEdits: [{ path: '/w/note.txt', kind: 'create' }] }),
    ev('assistant.message', { messageId: 'm2', content: '', toolRequests: [{ toolCallId: 'call_beacon_0002', name: 'bash', arguments: { command: 'touch x && ls /nonexistent-dir' } }] }),
    ev('tool.shell_output', { stream: 'stderr', text: 'ls: cannot access' }, { ephemeral: true }),
    ev('tool.execution_complete', { toolCallId: 'call_beacon_0002', success: true, shellExecution: { exitCode: 2 } }),
    ev('assistant.message', { messageId: 'm3', content: 'The command printed beacon-lab. Done.', toolRequests: [] }),
    ev('brand.new_ephemeral', {}, { ephemeral: true }),
    ...BAD,
    j({ type: 'result', timestamp: '2026-12-02T01:12:02.789Z', sessionId: C, exitCode: 0, usage: { premiumRequests: 0 } }),
  ];

  it('holds the events until the last line names the session, then gives every one of them its id; exit code 2 is a failure', () => {
    const parser = streamAdapter('copilot-cli')!.createParser({});
    assert.deepEqual(lines.slice(0, -1).flatMap((l) => parser.line(l)), [], 'nothing before the session is known');
    const evs = [...parser.line(lines.at(-1)!), ...parser.end()];
    assert.deepEqual(types(evs), ['write', 'command', 'agent', 'unknown', 'unknown', 'unknown']);
    assert.ok(harness(evs).every((h) => h.sessionId === C && Object.keys(h)[1] === 'sessionId'));
    assert.deepEqual(harness(evs)[1], { timestamp: '2026-12-02T01:12:02.615Z', sessionId: C, type: 'command', command: 'touch x && ls /nonexistent-dir', exitCode: 2, isSuccess: false });
    assert.equal(evs.filter((e) => e.detail.usageReport).length, 0, 'no usage in this stream');
  });
});

describe('opencode run --format json', () => {
  const S = 'ses_dcbaadfbeffeb3674VG3kNuTB2';
  const line = (type: string, part: object, at = 1796174334397) => j({ type, timestamp: at, sessionID: S, part: { sessionID: S, ...part } });
  const lines = [
    line('step_start', { id: 'prt_1', messageID: 'msg_1', type: 'step-start' }, 1796174333488),
    line('tool_use', { type: 'tool', tool: 'write', callID: 'call_beacon_0001', messageID: 'msg_1', state: { status: 'completed', input: { filePath: '/w/note.txt', content: 'hello\n' }, metadata: { filepath: '/w/note.txt', exists: false } } }),
    line('step_finish', { id: 'prt_2', reason: 'tool-calls', messageID: 'msg_1', tokens: { total: 1240, input: 900, output: 32, reasoning: 8, cache: { write: 0, read: 300 } }, cost: 0 }),
    line('tool_use', { type: 'tool', tool: 'bash', callID: 'call_beacon_0002', messageID: 'msg_2', state: { status: 'completed', input: { command: 'touch x && ls /nonexistent-dir' }, metadata: { exit: 2 } } }, 1796174335916),
    line('text', { id: 'prt_4', messageID: 'msg_3', text: 'The command printed beacon-lab. Done.' }, 1796174336000),
    ...BAD,
    line('step_finish', { id: 'prt_5', reason: 'stop', messageID: 'msg_3', tokens: { input: 500, output: 20, reasoning: 5, cache: { write: 0, read: 1000 } }, cost: 0 }),
  ];

  it('each tool once, finished (exit 2 in metadata is a failure); each step\'s tokens (input and output without cache and reasoning) as the stream\'s report of that call', () => {
    const evs = parse('opencode', lines);
    assert.deepEqual(types(evs), ['write', 'command', 'agent', 'unknown', 'unknown']);
    assert.ok(harness(evs).every((h) => h.sessionId === S));
    assert.deepEqual(harness(evs)[1], { timestamp: '2026-12-02T01:18:55.916Z', sessionId: S, type: 'command', command: 'touch x && ls /nonexistent-dir', exitCode: 2, isSuccess: false });
    const calls = evs.filter((e) => e.detail.usageReport?.scope === 'call').map((e) => e.detail.usageReport!.usage);
    assert.deepEqual(calls, [{ input_tokens: 900, output_tokens: 40, cache_read: { input_tokens: 300 }, reasoning: { output_tokens: 8 } }, { input_tokens: 500, output_tokens: 25, cache_read: { input_tokens: 1000 }, reasoning: { output_tokens: 5 } }]);
    assert.deepEqual(records('opencode', evs).filter((r) => r.event.action === 'usage.reported').map((r) => r.raw?.usage_scope), ['call', 'call']);
  });
});

describe('pi --mode json', () => {
  const usage = (input: number, cacheRead: number, output: number) => ({ input, output, cacheRead, cacheWrite: 0, totalTokens: input + cacheRead + output, cost: { total: 0 } });
  const assistant = (n: number, content: unknown[], u: unknown) => j({ type: 'message_end', message: { role: 'assistant', content, provider: 'mock', model: 'mock-model', usage: u, stopReason: 'toolUse', timestamp: 1_796_211_929_000 + n, responseId: `chatcmpl-${n}` } });
  const lines = [
    j({ type: 'session', version: 3, id: SID, timestamp: '2026-12-02T11:45:28.757Z', cwd: '/w' }),
    j({ type: 'agent_start' }),
    j({ type: 'message_end', message: { role: 'user', content: [{ type: 'text', text: 'go' }], timestamp: 1_796_211_928_976 } }),
    assistant(1, [{ type: 'toolCall', id: 'c1', name: 'write', arguments: { path: '/w/n.txt', content: 'hi\n' } }], usage(900, 300, 40)),
    j({ type: 'tool_execution_start', toolCallId: 'c1', toolName: 'write', args: { path: '/w/n.txt', content: 'hi\n' } }),
    j({ type: 'tool_execution_end', toolCallId: 'c1', toolName: 'write', result: { content: [{ type: 'text', text: 'Successfully wrote 3 bytes' }] }, isError: false }),
    j({ type: 'tool_execution_start', toolCallId: 'c2', toolName: 'bash', args: { command: 'make test' } }),
    j({ type: 'tool_execution_end', toolCallId: 'c2', toolName: 'bash', result: { content: [{ type: 'text', text: 'ls: no\n\n\nCommand exited with code 2' }], details: {} }, isError: true }),
    assistant(3, [{ type: 'text', text: 'Done.' }], usage(500, 1000, 25)),
    ...BAD,
  ];
  it('the header names the session; write, failed command with exit code 2, the answer; each message one call in disjoint buckets', () => {
    const p = streamAdapter('pi')!.createParser({});
    const evs = [...lines.flatMap((l) => p.line(l)), ...p.end()];
    assert.equal(p.streamSessionId, SID);
    assert.deepEqual(types(evs), ['write', 'command', 'agent', 'unknown', 'unknown']);
    assert.deepEqual(harness(evs).find((h) => h.type === 'command'), { timestamp: harness(evs)[1]!.timestamp, sessionId: SID, type: 'command', command: 'make test', exitCode: 2, isSuccess: false });
    const calls = evs.filter((e) => e.detail.usageReport?.scope === 'call').map((e) => [e.detail.usageReport!.callId, e.detail.usageReport!.usage.input_tokens, e.detail.usageReport!.usage.cache_read?.input_tokens, e.detail.usageReport!.usage.output_tokens]);
    assert.deepEqual(calls, [['chatcmpl-1', 900, 300, 40], ['chatcmpl-3', 500, 1000, 25]]);
  });
});
