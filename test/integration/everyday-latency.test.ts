/**
 * Issue 24 item 11, the CLI side: how long model and tool calls took (the span's end kept), latency
 * percentiles per model, a total tokens column. Fails on main: no gen_ai.duration_ms on goose's
 * spans, no latency_ms, no total_tokens.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gooseDefaultLoopTurn, gooseStateMachineTurn } from '../helpers/goose-spans';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { traceRequest } from '../helpers/otlp-json';

async function recordedTurn(): Promise<string> {
  const c = await startCollector();
  const r = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: 'lat_1' }).spans)), headers: { 'content-type': 'application/json' } });
  assert.equal(r.status, 200);
  await c.stop();
  return c.log;
}

describe('durations and latency (issue 24 item 11)', () => {
  it("goose's model and tool calls keep their span's duration, and events shows it", async () => {
    const log = await recordedTurn();
    const records = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
    const models = records.filter((r) => r.event.action === 'model.invoked');
    assert.deepEqual(models.map((r) => r.gen_ai.duration_ms).sort(), [2500, 4190]);
    const edit = records.find((r) => r.gen_ai?.tool?.call?.id === 'toolu_02XyZ');
    assert.equal(edit.gen_ai.duration_ms, 50, 'a non-shell tool has its duration too');
    const table = runBeacon(['events', '--log', log], { COLUMNS: '' }).stdout;
    assert.match(table, /anthropic claude-sonnet-4-5-20250929 · 2\.5 s/);
    assert.match(table, /edit: src\/lib\.rs · 50 ms \(call toolu_02XyZ\)/);
    assert.match(table, /shell: cargo test · 5\.5 s \(call toolu_01AbC\)/);
  });

  it('token-usage --by model: p50 and p95 per model, and total tokens', async () => {
    const log = await recordedTurn();
    const report = JSON.parse(runBeacon(['token-usage', '--log', log, '--json']).stdout);
    const g = report.groups[0];
    assert.deepEqual(g.latency_ms, { timed_calls: 2, p50: 3345, p95: 4106, max: 4190 });
    const u = g.usage;
    assert.equal(g.total_tokens, u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens);
    assert.equal(report.totals.total_tokens, g.total_tokens);
    const text = runBeacon(['token-usage', '--log', log]).stdout;
    assert.match(text.split('\n')[0]!, /CACHE WRITE\s+TOTAL TOKENS\s+REASONING\s+P50\s+P95\s+REPORTED/);
    assert.match(text, /claude-sonnet-4-5-20250929 \(anthropic\).*\s3\.3 s\s+4\.1 s\s/);
  });

  // ccusage's daily report by model (fails on main: --breakdown was an unknown option)
  it('token-usage --by day --breakdown: each day split by model, adding up to the day', async () => {
    const c = await startCollector();
    const start = 1787301000000000000n;
    for (const turn of [gooseDefaultLoopTurn({ sessionId: 'day_1', start }), gooseStateMachineTurn({ sessionId: 'day_2', start })]) {
      const r = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(turn.spans)), headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 200);
    }
    await c.stop();
    const report = JSON.parse(runBeacon(['token-usage', '--log', c.log, '--by', 'day', '--breakdown', '--utc', '--json']).stdout);
    assert.equal(report.groups.length, 1);
    const day = report.groups[0];
    assert.deepEqual(day.models.map((m: { key: string }) => m.key).sort(), ['claude-sonnet-4-5-20250929 (anthropic)', 'gpt-5.4-2026-03-05 (openai)']);
    assert.equal(day.models.reduce((n: number, m: { total_tokens: number }) => n + m.total_tokens, 0), day.total_tokens);
    const text = runBeacon(['token-usage', '--log', c.log, '--by', 'day', '--breakdown', '--utc']).stdout;
    assert.match(text, /^2026-08-21\s/m);
    assert.match(text, /^  └ gpt-5\.4-2026-03-05 \(openai\)\s/m);
  });
});
