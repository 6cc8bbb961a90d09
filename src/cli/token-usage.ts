import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { resolveEventLogPath } from '../config/paths';
import { BeaconError } from '../model/errors';
import { normalizeHarnessName } from '../model/harness';
import { parseTimeBound } from '../model/time';
import { loadCatalog, loadOverrides, overridesPath } from '../pricing/catalog';
import { estimateCost, type TokenSums } from '../pricing/estimate';
import { matchModel } from '../pricing/match';
import { EventLog } from '../store/event-log';
import { queryStreamReports, queryUsage, type UsageFilter, type UsageGrouping, type UsageRow } from '../store/usage-query';

export const TOKEN_USAGE_USAGE = `beacon token-usage [--log PATH] [--since T] [--until T] [--session ID] [--model M] [--harness H]
                   [--by session|model|provider|day|hour] [--top N] [--json]

Tokens per model call, in disjoint buckets (input, output, cache read, cache write; reasoning is
part of output), with the cost a runtime reported (if any) and a list-price estimate from the price
catalog shipped with Beacon, always apart. Days and hours are UTC.`;

interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  reasoning_output_tokens: number;
}

export interface UsageGroup {
  key: string | null;
  model_calls: number;
  usage: Usage;
  reported_cost_usd: number | null;
  estimated_cost_usd: number | null;
  unpriced_model_calls: number;
  unpriced_models: string[];
}

const zero = (): Usage => ({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, reasoning_output_tokens: 0 });
const emptyGroup = (key: string | null): UsageGroup => ({ key, model_calls: 0, usage: zero(), reported_cost_usd: null, estimated_cost_usd: null, unpriced_model_calls: 0, unpriced_models: [] });

function add(g: UsageGroup, r: UsageRow, estimate: number | undefined, unpricedName?: string): void {
  g.model_calls += r.calls;
  g.usage.input_tokens += r.input;
  g.usage.output_tokens += r.output;
  g.usage.cache_read_input_tokens += r.cacheRead;
  g.usage.cache_creation_input_tokens += r.cacheWrite;
  g.usage.reasoning_output_tokens += r.reasoning;
  if (r.reportedCost !== null) g.reported_cost_usd = (g.reported_cost_usd ?? 0) + r.reportedCost;
  if (estimate !== undefined) g.estimated_cost_usd = (g.estimated_cost_usd ?? 0) + estimate;
  else {
    g.unpriced_model_calls += r.calls;
    if (unpricedName !== undefined && !g.unpriced_models.includes(unpricedName)) g.unpriced_models.push(unpricedName);
  }
}

export function runTokenUsage(argv: string[], env: NodeJS.ProcessEnv, out: (s: string) => void): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      log: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, session: { type: 'string' }, model: { type: 'string' },
      harness: { type: 'string' }, by: { type: 'string' }, top: { type: 'string' }, json: { type: 'boolean' },
    },
    strict: true,
  });
  const by = (values.by ?? 'model') as UsageGrouping;
  if (!['session', 'model', 'provider', 'day', 'hour'].includes(by)) throw new BeaconError('usage', `--by must be session, model, provider, day or hour, got ${values.by}`);
  const time = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const t = parseTimeBound(v);
    if (t === undefined) throw new BeaconError('usage', `${flag}: not a time or duration: ${v}`);
    return t;
  };
  const top = values.top === undefined ? 0 : Number(values.top);
  if (!Number.isInteger(top) || top < 0) throw new BeaconError('usage', `--top must be a whole number (0 = all), got ${values.top}`);
  const filter: UsageFilter = {
    sinceNs: time('--since', values.since),
    untilNs: time('--until', values.until),
    sessionId: values.session,
    model: values.model,
    harness: values.harness === undefined ? undefined : normalizeHarnessName(values.harness),
  };
  const path = resolveEventLogPath(values.log, env);
  const catalog = loadCatalog();
  const overrides = loadOverrides(overridesPath(env));

  let rows: UsageRow[] = [];
  let stream: ReturnType<typeof queryStreamReports> = { count: 0, latest: [] };
  if (existsSync(path)) {
    let log: EventLog;
    try {
      log = EventLog.open(path); // read-write so an older log gets its usage index (a one-time migration)
    } catch {
      log = EventLog.open(path, { readonly: true });
    }
    try {
      rows = queryUsage(log.db, filter, by);
      stream = queryStreamReports(log.db, filter);
    } finally {
      log.close();
    }
  }

  const groups = new Map<string | null, UsageGroup>();
  const totals = emptyGroup('total');
  for (const r of rows) {
    const m = matchModel(r.model, r.provider, catalog, overrides);
    const sums: TokenSums = {
      input: r.input, output: r.output, cacheRead: r.cacheRead, cacheWrite: r.cacheWrite,
      above: r.above,
    };
    const estimate = m.priced ? estimateCost(sums, m.rates) : undefined;
    const name = r.model ?? '(no model)';
    const key = by === 'model' ? (r.model === null ? null : `${r.model}${r.provider ? ` (${r.provider})` : ''}`) : r.grp;
    if (!groups.has(key)) groups.set(key, emptyGroup(key));
    add(groups.get(key)!, r, estimate, name);
    add(totals, r, estimate, name);
  }
  let list = [...groups.values()];
  list.sort(by === 'day' || by === 'hour' ? (a, b) => String(a.key).localeCompare(String(b.key)) : (a, b) => tokens(b) - tokens(a));
  if (top > 0) list = list.slice(0, top);

  const report = {
    schema: 'beacon.token-usage/v1',
    log: path,
    by,
    filters: { since: values.since ?? null, until: values.until ?? null, session: values.session ?? null, model: values.model ?? null, harness: filter.harness ?? null },
    price_catalog: { source: `${catalog.source.repository}/${catalog.source.path}`, commit: catalog.source.commit, content_as_of: catalog.source.content_as_of, overrides: overrides?.path ?? null },
    groups: list,
    totals,
    stream_reports: {
      note: "goose stream-json `complete` records: session-cumulative totals with goose's own cost, not added to the totals above",
      count: stream.count,
      latest: stream.latest.map((s) => {
        const rec = JSON.parse(s.record);
        return { timestamp: rec.timestamp, session: rec.session?.id ?? null, model: rec.model ?? null, usage: rec.gen_ai?.usage ?? {} };
      }),
    },
  };
  if (values.json) {
    out(JSON.stringify(report));
    return 0;
  }
  out(renderTable(report.groups, totals, by));
  out('');
  out(`costs: REPORTED = what a runtime itself reported (goose reports none over OTLP); EST. LIST = list-price estimate from ${report.price_catalog.source} @ ${catalog.source.commit.slice(0, 8)} (${catalog.source.content_as_of})${overrides ? ` and your overrides ${overrides.path}` : ''}, standard tier, cache writes at the 5-minute rate. Estimates are never written into events.`);
  if (totals.unpriced_model_calls > 0) out(`unpriced: ${totals.unpriced_model_calls} model calls of ${totals.unpriced_models.join(', ')} (not in the catalog, or ambiguous there) — not guessed; add them to ${overridesPath(env)}`);
  if (stream.count > 0) out(`stream reports: ${stream.count} goose stream-json runs reported session-cumulative usage (not added above); see --json`);
  return 0;
}

const tokens = (g: UsageGroup) => g.usage.input_tokens + g.usage.output_tokens + g.usage.cache_read_input_tokens + g.usage.cache_creation_input_tokens;
const n = (x: number) => x.toLocaleString('en-US');
const usd = (x: number | null) => (x === null ? '-' : `$${x.toFixed(x < 1 ? 4 : 2)}`);

function renderTable(groups: UsageGroup[], totals: UsageGroup, by: UsageGrouping): string {
  const head = [by.toUpperCase(), 'CALLS', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'REASONING', 'REPORTED', 'EST. LIST'];
  const row = (g: UsageGroup, label: string) => [
    label, n(g.model_calls), n(g.usage.input_tokens), n(g.usage.output_tokens), n(g.usage.cache_read_input_tokens), n(g.usage.cache_creation_input_tokens),
    n(g.usage.reasoning_output_tokens), usd(g.reported_cost_usd), `${usd(g.estimated_cost_usd)}${g.unpriced_model_calls > 0 ? '*' : ''}`,
  ];
  const rows = [head, ...groups.map((g) => row(g, g.key ?? '(none)')), row(totals, 'TOTAL')];
  // numbers right-aligned
  const widths = head.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n') + (totals.unpriced_model_calls > 0 ? '\n* some calls unpriced: see below' : '');
}

