import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { logEvents, spanEvents } from '../../src/sources/dispatch';
import { decodeProtoLogs } from '../../src/receiver/signals/logs';
import { EventLog } from '../../src/store/log/event-log';
import { decodeJsonTraces } from '../../src/receiver/signals/traces';
import { toRows } from '../../src/ingest/rows';
import { GooseStreamParser } from '../../src/sources/goose/stream-json';
import { streamRecord } from '../../src/sources/goose/stream-record';
import { runBeacon } from '../helpers/daemon';
import { gooseDefaultLoopTurn, hex } from '../helpers/goose-spans';
import { traceRequest } from '../helpers/otlp-json';
import { repoRoot, tempDir } from '../helpers/paths';

/** Stores spans exactly as the collector would (decode → extract → redact → rows). */
function storeSpans(log: EventLog, req: object): void {
  const ex = spanEvents(decodeJsonTraces(Buffer.from(JSON.stringify(req))));
  log.append(toRows(ex.events).rows);
}

const DAY1 = 1787301000000000000n; // 2026-08-21 08:30 UTC
const DAY2 = DAY1 + 86_400_000_000_000n;

function fixtureLog() {
  const home = tempDir('usage-home-');
  const path = join(home, 'events.db');
  const log = EventLog.open(path);
  storeSpans(log, traceRequest(gooseDefaultLoopTurn({ sessionId: 's1', start: DAY1 }).spans));
  storeSpans(log, traceRequest(gooseDefaultLoopTurn({ sessionId: 's2', start: DAY2 }).spans));
  const chat = (attrs: Record<string, string | number>) => ({ name: 'chat', traceId: hex(16), spanId: hex(8), start: DAY2 + 5n, end: DAY2 + 9n, attributes: { 'gen_ai.operation.name': 'chat', 'session.id': 's3', ...attrs } });
  storeSpans(log, traceRequest([
    chat({ 'gen_ai.provider.name': 'ollama', 'gen_ai.response.model': 'my-local-model', 'gen_ai.usage.input_tokens': 1000, 'gen_ai.usage.output_tokens': 10 }),
    chat({ 'gen_ai.provider.name': 'anthropic', 'gen_ai.response.model': 'claude-sonnet-4-5', 'gen_ai.usage.input_tokens': 250000, 'gen_ai.usage.output_tokens': 1000 }),
  ]));
  // a goose stream-json run reporting session-cumulative usage: listed apart, never added
  const p = new GooseStreamParser();
  const [complete] = p.line(JSON.stringify({ type: 'complete', total_tokens: 15260, input_tokens: 14550, output_tokens: 710, cache_read_input_tokens: 11200, cache_write_input_tokens: 1500, cost_usd: 0.0241 }));
  const rec = streamRecord(complete!, 's1')!;
  log.append(toRows([rec]).rows);
  log.close();
  return { home, path };
}

describe('beacon token-usage', () => {
  const { home, path } = fixtureLog();
  const usage = (args: string[]) => {
    const r = runBeacon(['token-usage', '--log', path, '--json', ...args], { HOME: home });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  it('sums goose-shaped calls in disjoint buckets (cache-inclusive input made disjoint) and prices them at list price', () => {
    const s1 = usage(['--session', 's1']);
    assert.equal(s1.totals.model_calls, 2);
    assert.deepEqual(s1.totals.usage, { input_tokens: 740, output_tokens: 310, cache_read_input_tokens: 23900, cache_creation_input_tokens: 1500, reasoning_output_tokens: 0 });
    assert.equal(Math.round(s1.totals.estimated_cost_usd * 1e9) / 1e9, 0.019665);
    assert.equal(s1.totals.reported_cost_usd, null, 'goose reports no cost over OTLP');
  });

  it('groups by model, provider, session, day; prices long-context calls at the tier; names unpriced models', () => {
    const byModel = usage([]);
    const keys = byModel.groups.map((g: { key: string }) => g.key);
    assert.deepEqual(keys.sort(), ['claude-sonnet-4-5 (anthropic)', 'claude-sonnet-4-5-20250929 (anthropic)', 'my-local-model (ollama)']);
    const long = byModel.groups.find((g: { key: string }) => g.key === 'claude-sonnet-4-5 (anthropic)');
    assert.equal(Math.round(long.estimated_cost_usd * 1e6) / 1e6, Math.round(((250000 * 6 + 1000 * 22.5) / 1e6) * 1e6) / 1e6);
    const local = byModel.groups.find((g: { key: string }) => g.key === 'my-local-model (ollama)');
    assert.equal(local.estimated_cost_usd, null);
    assert.deepEqual(byModel.totals.unpriced_models, ['my-local-model']);
    assert.equal(byModel.totals.unpriced_model_calls, 1);
    assert.equal(byModel.totals.model_calls, 6);
    assert.deepEqual(usage(['--by', 'day']).groups.map((g: { key: string; model_calls: number }) => [g.key, g.model_calls]), [['2026-08-21', 2], ['2026-08-22', 4]]);
    assert.deepEqual(usage(['--by', 'provider']).groups.map((g: { key: string }) => g.key).sort(), ['anthropic', 'ollama']);
    assert.equal(usage(['--by', 'session', '--top', '1']).groups.length, 1);
    assert.equal(usage(['--model', 'claude-sonnet-4-5']).totals.model_calls, 5, 'a prefix matches dated versions');
    assert.equal(usage(['--since', '2026-08-22T00:00:00Z']).totals.model_calls, 4);
    assert.equal(usage(['--until', '2026-08-22T00:00:00Z']).totals.model_calls, 2);
    assert.equal(usage(['--harness', 'Goose-CLI']).totals.model_calls, 6);
  });

  it('keeps stream-reported (session-cumulative) usage and its reported cost apart from the totals', () => {
    const r = usage([]);
    assert.equal(r.stream_reports.count, 1);
    assert.equal(r.stream_reports.latest[0].usage.cost_usd, 0.0241);
    assert.equal(r.totals.reported_cost_usd, null);
  });

  it('applies a user override for an unpriced model', () => {
    mkdirSync(join(home, '.beacon', 'endpoint', 'pricing'), { recursive: true });
    writeFileSync(join(home, '.beacon', 'endpoint', 'pricing', 'overrides.json'), JSON.stringify({ schema: 'beacon.pricing.overrides/v1', models: { 'my-local-model': { input: 1, output: 2 } } }));
    const r = usage([]);
    const local = r.groups.find((g: { key: string }) => g.key === 'my-local-model (ollama)');
    assert.equal(local.estimated_cost_usd, (1000 * 1 + 10 * 2) / 1e6);
    assert.equal(r.totals.unpriced_model_calls, 0);
    assert.match(r.price_catalog.overrides, /overrides\.json$/);
  });

  it('prints an aligned table with totals and labels the two costs apart', () => {
    const r = runBeacon(['token-usage', '--log', path, '--by', 'session'], { HOME: tempDir(), COLUMNS: '' });
    const lines = r.stdout.split('\n');
    assert.match(lines[0]!, /^SESSION\s+LAST ACTIVITY\s+AGENT\s+MODELS\s+REPOSITORY\s+CALLS\s+INPUT\s+OUTPUT\s+CACHE READ\s+CACHE WRITE\s+TOTAL TOKENS\s+REASONING\s+REPORTED\s+EST\. LIST$/);
    assert.match(r.stdout, /^TOTAL\s+6\s/m);
    assert.match(r.stdout, /list-price estimate/);
    assert.match(r.stdout, /unpriced: 1 model call of my-local-model/);
    assert.match(r.stdout, /stream reports: 1/);
    const widths = new Set(lines.slice(0, 4).map((l) => l.length));
    assert.equal(widths.size, 1, 'aligned columns');
  });
});

describe('beacon token-usage across agents', () => {
  it('--by harness names each agent; --harness picks one; each agent\'s tokens are its own semantics made disjoint', () => {
    const home = tempDir('usage-agents-');
    const path = join(home, 'events.db');
    const log = EventLog.open(path);
    storeSpans(log, traceRequest(gooseDefaultLoopTurn({ sessionId: 'g1', start: DAY1 }).spans));
    // Claude Code's real export (its input excludes the cache) and Codex's (includes it).
    const fixture = (agent: string, file: string) => readFileSync(join(repoRoot(), 'test', 'fixtures', 'agents', agent, file));
    log.append(toRows(logEvents(decodeProtoLogs(fixture('claude', '2-logs.pb'))).events).rows);
    log.append(toRows(logEvents(decodeProtoLogs(fixture('codex', '4-logs.pb'))).events).rows);
    log.close();
    const usage = (args: string[]) => {
      const r = runBeacon(['token-usage', '--log', path, '--json', ...args], { HOME: home });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout);
    };
    const byHarness = usage(['--by', 'harness']);
    assert.deepEqual(byHarness.groups.map((g: { key: string; model_calls: number }) => [g.key, g.model_calls]).sort(), [['claude-code', 2], ['codex', 2], ['goose', 2]]);
    assert.deepEqual(usage(['--harness', 'claude-code']).totals.usage, { input_tokens: 2700, output_tokens: 65, cache_read_input_tokens: 1300, cache_creation_input_tokens: 70, reasoning_output_tokens: 0 });
    assert.deepEqual(usage(['--harness', 'codex']).totals.usage, { input_tokens: 1400, output_tokens: 65, cache_read_input_tokens: 1300, cache_creation_input_tokens: 0, reasoning_output_tokens: 13 });
    const table = runBeacon(['token-usage', '--log', path, '--by', 'harness'], { HOME: home });
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /claude-code/);
    assert.match(table.stdout, /codex/);
  });
});

describe('beacon token-usage --session: goose\'s own total beside the per-call sum (compaction has no span)', () => {
  it('names the difference as calls without a span, in the table and in --json', () => {
    const home = tempDir('usage-compaction-');
    const path = join(home, 'events.db');
    const log = EventLog.open(path);
    storeSpans(log, traceRequest(gooseDefaultLoopTurn({ sessionId: 'c1', start: DAY1 }).spans)); // 26,450 tokens in 2 calls
    // goose's stream `complete` for the same session counts a compaction call that had no span: 1,000 more
    const p = new GooseStreamParser();
    const [complete] = p.line(JSON.stringify({ type: 'complete', total_tokens: 27450, input_tokens: 27000, output_tokens: 450, cache_read_input_tokens: 23900, cache_write_input_tokens: 1500 }));
    log.append(toRows([streamRecord(complete!, 'c1')!]).rows);
    log.close();
    const json = JSON.parse(runBeacon(['token-usage', '--log', path, '--session', 'c1', '--json'], { HOME: home }).stdout);
    assert.equal(json.totals.model_calls, 2, 'the reported total is never added to the per-call sums');
    assert.deepEqual(
      { reported: json.session_reconciliation.reported_total_tokens, perCall: json.session_reconciliation.per_call_total_tokens, diff: json.session_reconciliation.unspanned_tokens },
      { reported: 27450, perCall: 26450, diff: 1000 },
    );
    const text = runBeacon(['token-usage', '--log', path, '--session', 'c1'], { HOME: home }).stdout;
    assert.match(text, /goose reported 27,450 tokens .* 2 recorded model calls sum to 26,450; difference 1,000 — the difference is in calls without a span, e\.g\. compaction/);
    assert.doesNotMatch(runBeacon(['token-usage', '--log', path], { HOME: home }).stdout, /session total:/, 'only with --session');
  });
});
