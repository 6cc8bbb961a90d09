import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { piStore } from '../../src/sources/pi/store-pi';

const SID = '01a23692-eeb1-7072-a13b-f73fef853377';
const usage = { input: 900, output: 40, cacheRead: 300, cacheWrite: 0, totalTokens: 1240, cost: { total: 0 } };
/** A Pi session file's lines as 0.73.1 writes them (docs/agents/pi-facts.md §6), the two-tool run. */
const LINES: Record<string, unknown>[] = [
  { type: 'session', version: 3, id: SID, timestamp: '2026-12-02T11:45:28.757Z', cwd: '/w' },
  { type: 'model_change', id: 'c73cbb4d', parentId: null, timestamp: '2026-12-02T11:45:28.951Z', provider: 'mock', modelId: 'mock-model' },
  { type: 'message', id: 'b930c314', parentId: 'c73cbb4d', timestamp: '2026-12-02T11:45:28.982Z', message: { role: 'user', content: [{ type: 'text', text: 'Write it' }], timestamp: 1 } },
  { type: 'message', id: 'a2e456cb', parentId: 'b930c314', timestamp: '2026-12-02T11:45:29.331Z', message: { role: 'assistant', content: [{ type: 'toolCall', id: 'call_1', name: 'write', arguments: { path: '/w/n.txt', content: 'hi\n' } }, { type: 'toolCall', id: 'call_2', name: 'bash', arguments: { command: 'ls /nope' } }], provider: 'mock', model: 'mock-model', usage, stopReason: 'toolUse', responseId: 'chatcmpl-1' } },
  { type: 'message', id: '56e45348', parentId: 'a2e456cb', timestamp: '2026-12-02T11:45:29.346Z', message: { role: 'toolResult', toolCallId: 'call_1', toolName: 'write', content: [{ type: 'text', text: 'Successfully wrote 3 bytes' }], isError: false } },
  { type: 'message', id: '3e25950c', parentId: '56e45348', timestamp: '2026-12-02T11:45:29.415Z', message: { role: 'toolResult', toolCallId: 'call_2', toolName: 'bash', content: [{ type: 'text', text: 'ls: no\n\n\nCommand exited with code 2' }], isError: true } },
];

describe("Pi's session store", () => {
  it('finds its files under $PI_CODING_AGENT_DIR or ~/.pi/agent, sessions two deep', () => {
    assert.equal(piStore.root('/h'), '/h/.pi/agent/sessions');
    assert.equal(piStore.root('/h', { PI_CODING_AGENT_DIR: '/a' }), '/a/sessions');
    assert.equal(piStore.isSessionFile('--w--/2026-12-02T11-45-28-757Z_x.jsonl'), true);
  });
  it('the prompt, one model call per message in disjoint buckets, the write with its diff, the failed command with exit code 2', () => {
    const reader = piStore.reader('f.jsonl');
    const events = [...LINES.flatMap((l) => reader.line(l)), ...reader.end()].map((e) => e.record);
    assert.deepEqual(events.map((r) => [r.event.action, r.session?.id, r.harness.collection_method]), [
      ['prompt.submitted', SID, 'poll'], ['model.invoked', SID, 'poll'], ['file.modified', SID, 'poll'], ['tool.failed', SID, 'poll'],
    ]);
    const call = events[1]!;
    assert.deepEqual([call.gen_ai?.response?.id, call.gen_ai?.usage?.input_tokens, call.gen_ai?.usage?.cache_read?.input_tokens, call.gen_ai?.usage?.output_tokens], ['chatcmpl-1', 900, 300, 40]);
    assert.match(events[2]!.file?.diff ?? '', /^\+hi$/m);
    assert.deepEqual([events[3]!.command?.command, events[3]!.command?.exit_code], ['ls /nope', 2]);
  });
});
