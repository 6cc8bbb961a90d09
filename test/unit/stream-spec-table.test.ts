import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HarnessEvent } from '../../src/model/harness-event';
import { GooseStreamParser } from '../../src/sources/goose/stream-json';

/**
 * The specification's "Normalized mapping" table for goose's stream-json (shared/seeds, the Events
 * document), row by row. Beacon's harness events are the spec: these rows must hold as written.
 */
const NOW = new Date('2026-12-01T00:00:00.000Z');
const message = (role: 'assistant' | 'user', content: unknown[], id = 'm1') =>
  JSON.stringify({ type: 'message', message: { id, role, created: 1796100000, content, metadata: {} } });

function harness(lines: string[]): Omit<HarnessEvent, 'timestamp'>[] {
  const p = new GooseStreamParser({ now: () => NOW });
  const events = [...lines.flatMap((l) => p.line(l)), ...p.end()];
  return events.map((e) => e.harness).filter((h): h is HarnessEvent => h !== null).map(({ timestamp: _t, ...rest }) => rest);
}

describe("the spec's goose stream-json mapping table, row by row", () => {
  it('assistant text block → agent (accumulated across same-id fragments, then flushed)', () => {
    assert.deepEqual(harness([message('assistant', [{ type: 'text', text: 'Hel' }]), message('assistant', [{ type: 'text', text: 'lo' }])]), [{ type: 'agent', message: 'Hello' }]);
  });

  it('assistant thinking block → reasoning (accumulated across same-id fragments, then flushed)', () => {
    assert.deepEqual(harness([message('assistant', [{ type: 'thinking', thinking: 'a' }]), message('assistant', [{ type: 'thinking', thinking: 'b' }])]), [{ type: 'reasoning', message: 'ab' }]);
  });

  it('user text, redactedThinking → consumed, no event', () => {
    assert.deepEqual(harness([message('user', [{ type: 'text', text: 'fix it' }]), message('assistant', [{ type: 'redactedThinking', data: 'x' }])]), []);
  });

  it('toolRequest + matching toolResponse → the tool event for the tool, or unknown', () => {
    const call = (name: string, args: object) => [
      message('assistant', [{ type: 'toolRequest', id: 'c1', toolCall: { status: 'success', value: { name, arguments: args } } }]),
      message('user', [{ type: 'toolResponse', id: 'c1', toolResult: { status: 'success', value: { content: [], isError: false } } }], 'm2'),
    ];
    assert.deepEqual(harness(call('developer__shell', { command: 'cargo test' })), [{ type: 'command', command: 'cargo test', isSuccess: true }]);
    const other = harness(call('someserver__frobnicate', { x: 1 }));
    assert.equal(other.length, 1);
    assert.equal(other[0]!.type, 'unknown');
  });

  it('complete → consumed for usage; flushes pending text; no event of its own', () => {
    assert.deepEqual(harness([message('assistant', [{ type: 'text', text: 'done' }]), JSON.stringify({ type: 'complete', total_tokens: 3, input_tokens: 2, output_tokens: 1 })]), [{ type: 'agent', message: 'done' }]);
  });

  it('error → error', () => {
    assert.deepEqual(harness([JSON.stringify({ type: 'error', error: 'provider overloaded' })]), [{ type: 'error', message: 'provider overloaded' }]);
  });

  it('notification → unknown, surfaced verbatim rather than parsed from prose', () => {
    for (const n of [
      { type: 'notification', extension_id: 'developer', log: { message: 'running cargo test' } },
      { type: 'notification', extension_id: 'computercontroller', progress: { progress: 0.5, total: 1, message: null } },
      { type: 'notification', something: 'else' },
    ]) assert.deepEqual(harness([JSON.stringify(n)]), [{ type: 'unknown', raw: n }]);
  });

  it('unrecognized record / block type → unknown', () => {
    assert.deepEqual(harness([JSON.stringify({ type: 'future_record', x: 1 })]), [{ type: 'unknown', raw: { type: 'future_record', x: 1 } }]);
    assert.deepEqual(harness([message('assistant', [{ type: 'hologram', x: 1 }])]).map((e) => e.type), ['unknown']);
  });
});

describe('stream events without a time of their own', () => {
  it("are stamped in the run's time line (goose's created), not the wall clock (issue 24 item 9)", () => {
    const p = new GooseStreamParser({ now: () => new Date('2030-01-01T00:00:00.000Z') });
    const events = [...p.line(message('assistant', [{ type: 'text', text: 'hi' }])), ...p.line('not json at all'), ...p.line(JSON.stringify({ type: 'error', error: 'x' })), ...p.end()];
    const times = events.map((e) => e.harness?.timestamp).filter(Boolean);
    assert.ok(times.length >= 3);
    for (const t of times) assert.equal(t, new Date(1796100000 * 1000).toISOString());
  });
});
