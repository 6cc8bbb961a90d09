import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toRows } from '../../src/ingest/rows';
import { decodeProtoLogs } from '../../src/receiver/signals/logs';
import { decodeJsonTraces } from '../../src/receiver/signals/traces';
import { logEvents, spanEvents } from '../../src/sources/dispatch';
import { EventLog } from '../../src/store/log/event-log';
import { jsonl, runBeacon } from '../helpers/daemon';
import { gooseDefaultLoopTurn, hex } from '../helpers/goose-spans';
import { runHookSync } from '../helpers/hooks';
import { traceRequest } from '../helpers/otlp-json';
import { repoRoot, tempDir } from '../helpers/paths';

/**
 * Issue 33 (reports): the tables on an 80-column terminal, ccusage's session, repository and
 * 5-hour block reports, costs to the catalog's precision, the unpriced list in one order, one footer.
 */
const HOUR = 3_600_000_000_000n;
const DAY1 = 1787301000000000000n; // 2026-08-21 08:30 UTC
const NOW = BigInt(Date.now()) * 1_000_000n;
const CLAUDE_SESSION = '0bb77e1b-e9db-4724-877e-2b5dd78c102a'; // the session of the Claude Code fixture

function fixture() {
  const home = tempDir('reports-narrow-');
  const path = join(home, 'events.db');
  const log = EventLog.open(path);
  const spans = (list: Parameters<typeof traceRequest>[0]) => log.append(toRows(spanEvents(decodeJsonTraces(Buffer.from(JSON.stringify(traceRequest(list))))).events).rows);
  const turn = (sessionId: string, start: bigint) => spans(gooseDefaultLoopTurn({ sessionId, start }).spans);
  turn('ses_a', DAY1); // block 08:00 UTC
  turn('ses_a', DAY1 + 4n * HOUR); // 12:30: still the 08:00 block (before 13:00)
  turn('ses_b', DAY1 + 5n * HOUR); // 13:30: a new block at 13:00
  turn('ses_c', NOW - HOUR / 6n); // the active block: 10 minutes ago …
  turn('ses_c', NOW - HOUR / 60n); // … and a minute ago
  // two unpriced models, the one that sorts last stored first
  const chat = (session: string, model: string) => ({ name: 'chat', traceId: hex(16), spanId: hex(8), start: DAY1 + 10n, end: DAY1 + 20n, attributes: { 'gen_ai.operation.name': 'chat', 'session.id': session, 'gen_ai.provider.name': 'ollama', 'gen_ai.response.model': model, 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 10 } });
  spans([chat('ses_0', 'zz-local')]);
  spans([chat('ses_1', 'aa-local')]);
  log.append(toRows(logEvents(decodeProtoLogs(readFileSync(join(repoRoot(), 'test', 'fixtures', 'agents', 'claude', '2-logs.pb')))).events).rows);
  log.close();
  // where ses_a and ses_b ran: goose's hooks carry the working directory
  for (const [session, dir] of [['ses_a', '/home/alice/proj'], ['ses_b', '/home/alice/other']]) {
    const r = runHookSync(path, 'prompt-submit', { event: 'UserPromptSubmit', session_id: session, message: 'go', working_dir: dir });
    assert.equal(r.status, 0, r.stderr);
  }
  return { home, path };
}

describe('reports on an 80-column terminal (issue 33)', () => {
  const { home, path } = fixture();
  const text = (args: string[], columns: string) => {
    const r = runBeacon([...args, '--log', path], { HOME: home, COLUMNS: columns, TZ: 'UTC' });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout;
  };
  const json = (args: string[]) => {
    const r = runBeacon(['token-usage', '--log', path, '--json', ...args], { HOME: home, TZ: 'UTC' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  it('every line of token-usage, sessions and events fits 80 columns, keeping the key, the tokens and the cost', () => {
    for (const args of [['token-usage'], ['token-usage', '--by', 'session'], ['token-usage', '--by', 'block'], ['token-usage', '--by', 'repository'], ['token-usage', '--by', 'day', '--breakdown'], ['sessions'], ['events', '--no-pager']]) {
      const out = text(args, '80');
      for (const line of out.split('\n')) assert.ok(line.length <= 80, `${args.join(' ')}: ${line.length} columns: ${line}`);
    }
    const byModel = text(['token-usage'], '80').split('\n');
    assert.match(byModel[0]!, /^MODEL\s+INPUT\s+OUTPUT\s+TOTAL\s+REPORTED\s+COST$/);
    assert.match(byModel.find((l) => l.startsWith('TOTAL'))!, /\$\d/, 'the total row keeps its cost');
    // an id too long for the compact layout is shortened; --json keeps it whole
    const bySession = text(['token-usage', '--by', 'session'], '80');
    assert.match(bySession, /^0bb77e1b… +\d{4}-\d\d-\d\d /m);
    assert.ok(!bySession.includes(CLAUDE_SESSION));
    assert.ok(json(['--by', 'session']).groups.some((g: { key: string }) => g.key === CLAUDE_SESSION));
    assert.match(text(['sessions'], '80'), /^0bb77e1b… +claude-code +\d\d-\d\d \d\d:\d\d +[\d,]+ +\$/m);
  });

  it('the wide layout when there is room, and for a pipe (no COLUMNS)', () => {
    for (const columns of ['250', '']) {
      const head = text(['token-usage'], columns).split('\n')[0]!;
      assert.match(head, /^MODEL\s+CALLS\s+INPUT\s+OUTPUT\s+CACHE READ\s+CACHE WRITE\s+TOTAL TOKENS\s+REASONING\s+P50\s+P95\s+REPORTED\s+EST\. LIST$/, `COLUMNS=${columns}`);
    }
    assert.ok(text(['sessions'], '').includes(CLAUDE_SESSION));
  });

  it('--by session: each session with its dates, agent, models and repository', () => {
    const groups = json(['--by', 'session']).groups as { key: string; session: Record<string, unknown> }[];
    const a = groups.find((g) => g.key === 'ses_a')!;
    assert.deepEqual({ ...a.session, start: undefined, end: undefined }, { start: undefined, end: undefined, agent: 'goose', repository: '/home/alice/proj', branch: null, models: ['claude-sonnet-4-5-20250929'] });
    assert.equal(a.session.start, '2026-08-21T08:30:00.010000000Z');
    assert.equal(groups.find((g) => g.key === CLAUDE_SESSION)!.session.agent, 'claude-code');
    assert.match(text(['token-usage', '--by', 'session'], '250'), /^ses_a\s+2026-\d\d-\d\d \d\d:\d\d\s+goose\s+claude-sonnet-4-5-20250929\s+\/home\/alice\/proj\s/m);
  });

  it('--by repository sums each session under its repository', () => {
    const r = json(['--by', 'repository']);
    const tokens = Object.fromEntries(r.groups.map((g: { key: string | null; total_tokens: number }) => [g.key, g.total_tokens]));
    assert.equal(tokens['/home/alice/proj'], 2 * 26450);
    assert.equal(tokens['/home/alice/other'], 26450);
    assert.equal(r.groups.reduce((a: number, g: { total_tokens: number }) => a + g.total_tokens, 0), r.totals.total_tokens);
  });

  it('--by block: ccusage\'s 5-hour blocks from the hour of a call, the active one with its burn rate and projection', () => {
    const r = json(['--by', 'block']);
    const blocks = r.groups.map((g: { key: string; model_calls: number; block: Record<string, unknown> }) => [g.key, g.model_calls, g.block.active]);
    assert.deepEqual(blocks.slice(0, 2), [['2026-08-21 08:00', 4 + 2, false], ['2026-08-21 13:00', 2, false]]);
    const active = r.groups[r.groups.length - 1];
    assert.equal(active.block.active, true);
    assert.equal(active.model_calls, 4);
    assert.equal(active.block.end.slice(11, 13), String((Number(active.key.slice(11, 13)) + 5) % 24).padStart(2, '0'));
    // the rate between its first and last call (9 minutes and 2.49 s apart: the two turns' chat spans)
    const minutes = (Date.parse(active.block.last_call) - Date.parse(active.block.first_call)) / 60_000;
    assert.ok(minutes > 8 && minutes < 10, String(minutes));
    assert.equal(active.block.burn_rate.tokens_per_minute, Math.round(active.total_tokens / minutes));
    assert.ok(active.block.projection.total_tokens > active.total_tokens);
    assert.equal(r.groups[0].block.burn_rate, null, 'a finished block has no burn rate');
    const out = text(['token-usage', '--by', 'block'], '80');
    assert.match(out, /^2026-08-21 08:00 +done /m);
    assert.match(out, / ACTIVE /);
    assert.match(out.replace(/\n {2}/g, ' '), /active block .* burn rate [\d,]+ tokens\/min, \$[\d.]+\/h; projected by its end [\d,]+ tokens, \$[\d.]+/);
  });

  it('costs in JSON to the catalog\'s precision; the unpriced models in one order; one footer', () => {
    const r = json(['--session', 'ses_a']);
    assert.equal(r.totals.estimated_cost_usd, 2 * 0.019665, 'no floating-point tail');
    const all = json(['--by', 'session']);
    assert.deepEqual(all.totals.unpriced_models, ['aa-local', 'zz-local']);
    const costs = JSON.stringify(all).match(/"[a-z_]*cost_usd":[\d.e-]+/g) ?? [];
    assert.ok(costs.length > 5);
    for (const c of costs) assert.ok((c.split(':')[1]!.split('.')[1] ?? '').length <= 12, c);
    const out = text(['token-usage', '--by', 'session'], '');
    assert.equal(out.match(/unpriced/g)?.length, 1, out);
    assert.match(out, /^\* unpriced: 2 model calls of aa-local, zz-local /m);
    assert.equal(out.match(/^costs: /gm)?.length, 1);
  });

  it('sessions --json keeps whole ids and times', () => {
    const rows = jsonl(runBeacon(['sessions', '--log', path, '--json'], { HOME: home }).stdout);
    assert.ok(rows.some((s) => s.id === CLAUDE_SESSION));
  });
});
