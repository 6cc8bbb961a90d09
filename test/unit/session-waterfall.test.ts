import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stackedBars } from '../../src/dashboard/chart';
import { notFoundPage } from '../../src/dashboard/pages';
import { renderWaterfall, waterfallRows } from '../../src/dashboard/waterfall';
import { joinToolCalls, type StoredActivity } from '../../src/store/queries/tool-calls';

const T0 = 1_796_211_964_991_000_000n; // a lab run's first event (Copilot CLI 1.0.102, 2026-12-02)
const ms = (n: number) => T0 + BigInt(n) * 1_000_000n;
let seq = 0n;
function row(tsNs: bigint, action: string, record: Record<string, unknown>, extra: Partial<StoredActivity> = {}): StoredActivity {
  return { seq: ++seq, tsNs, method: 'otlp', action, sessionId: 'ses', harness: 'copilot-cli', toolCallId: null, record: JSON.stringify(record), ...extra };
}
const span = (span_id: string, parent_span_id?: string) => ({ trace: { id: 't', span_id, ...(parent_span_id ? { parent_span_id } : {}) }, raw: { otel_signal: 'traces' } });

/** Copilot CLI's spans as the lab stored them: invoke_agent (prompt and end of turn) → chat / execute_tool. */
function copilotSession(tool = 'bash', command = 'ls build/'): StoredActivity[] {
  return [
    row(ms(0), 'prompt.submitted', { ...span('agent') }),
    row(ms(155), 'model.invoked', { ...span('chat1', 'agent'), model: 'gpt-4.1', gen_ai: { duration_ms: 61 } }),
    row(ms(230), 'file.modified', { ...span('tool1', 'agent'), gen_ai: { tool: { name: 'create' }, duration_ms: 4 } }, { toolCallId: 'call_1' }),
    row(ms(300), 'tool.failed', { ...span('tool2', 'agent'), tool: { name: tool }, command: { command, exit_code: 2, duration_ms: 118 }, gen_ai: { tool: { name: tool }, duration_ms: 118 } }, { toolCallId: 'call_2' }),
    row(ms(433), 'model.invoked', { ...span('chat2', 'agent'), model: 'gpt-4.1', gen_ai: { duration_ms: 30 } }),
    row(ms(476), 'tool.completed', { ...span('agent') }),
  ];
}

describe('session waterfall', () => {
  it('nests the calls under their agent turn, at their span start, as long as they took', () => {
    const rows = waterfallRows(joinToolCalls(copilotSession()), T0);
    assert.deepEqual(rows.map((r) => [r.kind, r.depth, Math.round(r.startMs), r.durationMs]), [
      ['step', 0, 0, 476],
      ['model', 1, 155, 61],
      ['tool', 1, 230, 4],
      ['tool', 1, 300, 118],
      ['model', 1, 433, 30],
    ]);
    assert.equal(rows[3]!.failed, true);
    assert.equal(rows[3]!.label, 'bash: ls build/');
  });

  it("starts a log record's call its duration before the record (Claude Code logs a call when it ends)", () => {
    const rows = waterfallRows(joinToolCalls([
      row(ms(0), 'prompt.submitted', {}, { harness: 'claude-code' }),
      row(ms(111), 'model.invoked', { model: 'claude-sonnet-4-5', gen_ai: { duration_ms: 33 } }, { harness: 'claude-code' }),
    ]), T0);
    assert.deepEqual(rows.map((r) => [r.kind, Math.round(r.startMs), r.durationMs]), [['model', 78, 33]]);
  });

  it('one bar per tool call however many paths saw it; a hook-only call runs from pre-tool to post-tool', () => {
    const hook = (tsNs: bigint, action: string, phase: string) => row(tsNs, action, { raw: { hook_phase: phase }, tool: { name: 'shell' }, command: { command: 'ls' } }, { method: 'hook', toolCallId: 'c1', harness: 'goose' });
    const rows = waterfallRows(joinToolCalls([hook(ms(10), 'tool.invoked', 'pre-tool'), hook(ms(250), 'command.executed', 'post-tool'), row(ms(260), 'command.executed', { command: { command: 'ls' } }, { method: 'stream', toolCallId: 'c1', harness: 'goose' })]), T0);
    assert.equal(rows.length, 1);
    assert.deepEqual([Math.round(rows[0]!.startMs), Math.round(rows[0]!.durationMs!)], [10, 240]);
  });

  it('renders bars at their offsets, axis labels in one unit and format, every record string inert', async () => {
    const evil = '<img src=x onerror="window.__pwned=1">';
    const svg = (await renderWaterfall(waterfallRows(joinToolCalls(copilotSession(evil, `</text><script>alert(1)</script>`)), T0), { width: 1100 })).value;
    assert.ok(!svg.includes('<img') && !svg.includes('<script') && !svg.includes('</text><script'), 'no markup from a record');
    assert.ok(svg.includes('&lt;img src=x onerror=&quot;'), 'the tool name is shown, escaped');
    const bars = [...svg.matchAll(/<rect class="(wf-[a-z -]+)" x="([\d.]+)" y="[\d.]+" width="([\d.]+)"/g)].map((m) => [m[1], Number(m[2]), Number(m[3])] as const);
    assert.equal(bars.length, 5);
    // 0…500 ms over x 300…1030: 1.46 px per ms
    assert.deepEqual(bars.map(([, x]) => Math.round(x)), [300, 526, 636, 738, 932]);
    assert.ok(bars[3]![0].includes('wf-failed'));
    const labels = [...svg.matchAll(/<text class="x" x="([\d.]+)"[^>]*>([^<]*)<\/text>/g)].map((m) => [Number(m[1]), m[2]!] as const);
    assert.deepEqual(labels.map(([, l]) => l), ['0', '50', '100', '150', '200', '250', '300', '350', '400', '450', '500']);
    for (let i = 1; i < labels.length; i++) assert.ok(labels[i]![0] - labels[i - 1]![0] >= 60, 'labels at least 60 px apart');
    assert.match(svg, /from start \(ms\)/);
  });

  it('counts a long session in minutes, every label with the same precision', async () => {
    const svg = (await renderWaterfall([{ kind: 'model', label: 'm', startMs: 0, durationMs: 7.5 * 60_000, depth: 0, failed: false, denied: false }])).value;
    assert.match(svg, /from start \(min\)/);
    const labels = [...svg.matchAll(/<text class="x"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
    assert.ok(labels.length >= 3, labels.join());
    const decimals = new Set(labels.map((l) => (l.split('.')[1] ?? '').length));
    assert.equal(decimals.size, 1, `one format: ${labels.join(' ')}`);
  });
});

describe('token chart axes', () => {
  const to = new Date('2026-12-02T12:40:00Z'); // a Wednesday
  const points = [{ start: new Date('2026-10-07T10:00:00Z'), values: [1200, 40, 300, 50] as [number, number, number, number] }, { start: new Date('2026-12-01T09:00:00Z'), values: [900, 40, 0, 0] as [number, number, number, number] }];
  const ticks = (svg: string) => [...svg.matchAll(/<text class="x" x="([\d.]+)"[^>]*data-tick="([^"]+)">([^<]*)<\/text>/g)].map((m) => ({ x: Number(m[1]), at: new Date(m[2]!), label: m[3]! }));

  it('weekly ticks on the buckets’ Monday, none past now, labels apart, a unit on the y axis', async () => {
    const svg = (await stackedBars(points, { interval: 'week', from: new Date('2026-09-01T00:00:00Z'), to })).value;
    const t = ticks(svg);
    assert.ok(t.length >= 3);
    for (const k of t) {
      assert.equal(k.at.getUTCDay(), 1, `${k.label} is a Monday`);
      assert.ok(k.at <= to, `${k.label} not past now`);
      assert.match(k.label, /^\d{4}-\d{2}-\d{2}$/, 'one format');
    }
    assert.equal(t.at(-1)!.label, '2026-11-30', 'the newest tick is the current week');
    for (let i = 1; i < t.length; i++) assert.ok(t[i]!.x - t[i - 1]!.x >= 70);
    assert.match(svg, /<text class="unit"[^>]*>tokens<\/text>/);
  });

  it('hourly ticks in one format, none past the current hour, never crowded', async () => {
    const svg = (await stackedBars(points, { interval: 'hour', from: new Date('2026-11-30T12:00:00Z'), to })).value;
    const t = ticks(svg);
    for (const k of t) assert.match(k.label, /^\d{2}-\d{2} \d{2}:00$/);
    assert.ok(t.every((k) => k.at <= to));
    assert.equal(t.at(-1)!.label, '12-02 12:00');
    for (let i = 1; i < t.length; i++) assert.ok(t[i]!.x - t[i - 1]!.x >= 80, `${t[i - 1]!.label} / ${t[i]!.label}`);
  });
});

describe('404 page', () => {
  it('highlights no navigation entry', () => {
    const page = notFoundPage('/nope<b>');
    assert.ok(!page.includes('aria-current'), 'no nav entry is current');
    assert.ok(page.includes('/nope&lt;b&gt;'));
  });
});
