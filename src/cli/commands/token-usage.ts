import { resolveEventLogPath } from '../../config/paths';
import { BeaconError } from '../../model/errors';
import { harnessOption } from '../../model/harness';
import { didYouMean } from '../../model/suggest';
import { escapeControls } from '../../model/terminal';
import { calendarLabel, formatDuration, type Calendar } from '../../model/time';
import { totalTokens } from '../../model/usage';
import { loadCatalog, loadOverrides, overridesPath } from '../../pricing/catalog';
import { estimateCost } from '../../pricing/estimate';
import { matchModel } from '../../pricing/match';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configOption } from '../config-flags';
import { reconcileSession, reconciliationLine } from '../../store/queries/session-total';
import { cut, fitWidths, plural, safeCells, terminalWidth, usd } from '../format';
import { noLogMessage, openLogForReading, timeRange } from '../log-access';
import { EventLog } from '../../store/log/event-log';
import { queryModelDurations } from '../../store/queries/latency';
import { QUARTER_HOUR_NS, USAGE_GROUPINGS, queryStreamReports, queryUsage, type UsageFilter, type UsageGrouping, type UsageRow } from '../../store/queries/usage';

const CALENDARS = new Set<UsageGrouping>(['hour', 'day', 'week', 'month']);
/** `1 run`, `2 runs` */

export const spec = {
  name: 'beacon token-usage',
  summary: 'tokens and cost per model, session, provider, agent, day, week or month',
  usage: '[--log PATH] [--since T] [--until T] [--session ID] [--model M] [--harness H] [--by model|session|provider|harness|hour|day|week|month] [--breakdown] [--top N] [--json] [--utc]',
  description: `Tokens per model call, in disjoint buckets (input, output, cache read, cache write; reasoning is
part of output), with the cost a runtime reported (if any) and a list-price estimate from the price
catalog shipped with Beacon, always apart. Hours, days, weeks (ISO, from Monday) and months are
in your local zone (--utc: UTC); T as in beacon events --help.`,
  options: {
    log: configOption('log'),
    since: { type: 'string', arg: 'T', help: 'model calls at or after T (2026-11-30, 2026-11-30T09:00, 7d)' },
    until: { type: 'string', arg: 'T', help: 'model calls before T' },
    session: { type: 'string', arg: 'ID', help: 'only this session' },
    model: { type: 'string', arg: 'M', help: 'only this model (or its dated versions)' },
    harness: { type: 'string', arg: 'H', help: 'only this agent (goose, claude-code, codex, gemini-cli, qwen-code, opencode, copilot-cli…)' },
    by: { type: 'string', arg: 'G', help: 'group by model (default), session, provider, harness (the agent), hour, day, week or month' },
    top: { type: 'string', arg: 'N', help: 'the N largest groups, the rest summed in one "others" row (0 = all)' },
    breakdown: { type: 'boolean', help: 'each group split by model (tokens per day by model: --by day --breakdown)' },
    json: { type: 'boolean', help: 'the report as one JSON document (schema beacon.token-usage/v1)' },
    utc: { type: 'boolean', help: 'calendar groups in UTC instead of the local zone' },
  },
  examples: ['beacon token-usage', 'beacon token-usage --by day --since 7d', 'beacon token-usage --by day --breakdown', 'beacon token-usage --by session --top 10', 'beacon token-usage --by month --json'],
} as const satisfies CommandSpec;

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
  /** input + output + cache read + cache write (reasoning is part of output) */
  total_tokens: number;
  /** --breakdown: the group's model calls per model */
  models?: UsageGroup[];
  /** --by model: how long its calls took, from those that carry a duration (null: none does) */
  latency_ms?: { timed_calls: number; p50: number; p95: number; max: number } | null;
  reported_cost_usd: number | null;
  estimated_cost_usd: number | null;
  unpriced_model_calls: number;
  unpriced_models: string[];
}

const zero = (): Usage => ({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, reasoning_output_tokens: 0 });
const emptyGroup = (key: string | null): UsageGroup => ({ key, model_calls: 0, usage: zero(), total_tokens: 0, reported_cost_usd: null, estimated_cost_usd: null, unpriced_model_calls: 0, unpriced_models: [] });

function add(g: UsageGroup, r: UsageRow, estimate: number | undefined, unpricedName?: string): void {
  g.model_calls += r.calls;
  g.usage.input_tokens += r.input;
  g.usage.output_tokens += r.output;
  g.usage.cache_read_input_tokens += r.cacheRead;
  g.usage.cache_creation_input_tokens += r.cacheWrite;
  g.usage.reasoning_output_tokens += r.reasoning;
  g.total_tokens += totalTokens(r);
  if (r.reportedCost !== null) g.reported_cost_usd = (g.reported_cost_usd ?? 0) + r.reportedCost;
  if (estimate !== undefined) g.estimated_cost_usd = (g.estimated_cost_usd ?? 0) + estimate;
  else {
    g.unpriced_model_calls += r.calls;
    if (unpricedName !== undefined && !g.unpriced_models.includes(unpricedName)) g.unpriced_models.push(unpricedName);
  }
}

export async function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): Promise<number> {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values } = parsed;
  const by = (values.by ?? 'model') as UsageGrouping;
  if (!USAGE_GROUPINGS.includes(by)) throw new BeaconError('usage', `--by must be ${USAGE_GROUPINGS.join(', ')}, got ${values.by}${didYouMean(values.by ?? '', USAGE_GROUPINGS)}`);
  const utc = values.utc === true;
  const top = values.top === undefined ? 0 : /^\d+$/.test(values.top) ? Number(values.top) : NaN;
  if (!Number.isInteger(top) || top < 0) throw new BeaconError('usage', `--top must be a whole number (0 = all), got ${values.top}`);
  const { sinceNs, untilNs } = timeRange(values.since, values.until, utc);
  const filter: UsageFilter = {
    sinceNs,
    untilNs,
    sessionId: values.session,
    model: values.model,
    harness: values.harness === undefined ? undefined : harnessOption(values.harness),
  };
  const path = resolveEventLogPath(values.log, env);
  const catalog = loadCatalog();
  const overrides = loadOverrides(overridesPath(env));

  const reader = openLogForReading(path); // never creates a log; a directory or foreign file is an error
  if (!reader && !values.json) {
    out(noLogMessage(path));
    return 0;
  }
  reader?.close();
  const { rows, latency, stream } = reader ? await readUsage(path, filter, by) : { rows: [], latency: new Map(), stream: { count: 0, latest: [] } };

  const { groups, totals } = groupRows(rows, { by, utc, catalog, overrides, breakdown: values.breakdown === true && by !== 'model' });
  if (by === 'model') addLatency(groups, latency);
  let list = [...groups.values()];
  list.sort(CALENDARS.has(by) ? (a, b) => String(a.key).localeCompare(String(b.key)) : (a, b) => tokens(b) - tokens(a));
  // --top: the rest is summed into one "others" group, so the groups shown still add up to the total.
  let others: UsageGroup | null = null;
  if (top > 0 && list.length > top) {
    others = emptyGroup(`(${plural(list.length - top, 'other')})`);
    for (const g of list.slice(top)) merge(others, g);
    list = list.slice(0, top);
  }

  const report = {
    schema: 'beacon.token-usage/v1',
    log: path,
    by,
    filters: { since: values.since ?? null, until: values.until ?? null, session: values.session ?? null, model: values.model ?? null, harness: filter.harness ?? null },
    price_catalog: { source: `${catalog.source.repository}/${catalog.source.path}`, commit: catalog.source.commit, content_as_of: catalog.source.content_as_of, overrides: overrides?.path ?? null },
    groups: list,
    others,
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
  // With --session: goose's own session total (its newest stream report) beside the per-call sum.
  const reconciliation = values.session !== undefined ? reconcileSession(report.stream_reports.latest[0], totals.model_calls, totals.total_tokens) : undefined;
  if (values.json) {
    out(JSON.stringify(reconciliation ? { ...report, session_reconciliation: reconciliation } : report));
    return 0;
  }
  out(renderTable(others ? [...report.groups, others] : report.groups, totals, by, terminalWidth(env)));
  out('');
  out(`costs: REPORTED = what a runtime itself reported (Claude Code's cost_usd; goose reports none over OTLP); EST. LIST = list-price estimate from ${report.price_catalog.source} @ ${catalog.source.commit.slice(0, 8)} (${catalog.source.content_as_of})${overrides ? ` and your overrides ${overrides.path}` : ''}, standard tier, cache writes at the 5-minute rate. Estimates are never written into events.`);
  if (totals.unpriced_model_calls > 0) out(`unpriced: ${plural(totals.unpriced_model_calls, 'model call')} of ${escapeControls(totals.unpriced_models.join(', '))} (not in the catalog, or ambiguous there) — not guessed; add them to ${overridesPath(env)}`);
  if (reconciliation) out(reconciliationLine(reconciliation));
  if (stream.count > 0) out(`stream reports: ${plural(stream.count, 'goose stream-json run')} reported session-cumulative usage (not added above); see --json`);
  return 0;
}

/** The usage sums (the rollup and the usage index), the model calls' latency (by model only) and goose's stream reports. */
async function readUsage(path: string, filter: UsageFilter, by: UsageGrouping) {
  let log: EventLog;
  try {
    log = EventLog.open(path); // read-write so an older log gets its rollup and indexes (a one-time migration)
  } catch {
    log = EventLog.open(path, { readonly: true });
  }
  try {
    return {
      rows: queryUsage(log.db, filter, by),
      latency: by === 'model' ? await latencyOf(queryModelDurations(log.db, filter)) : new Map<string | null, UsageGroup['latency_ms']>(),
      stream: queryStreamReports(log.db, filter),
    };
  } finally {
    log.close();
  }
}

/**
 * P50/P95/max of each model's timed calls, by the group key of its model (d3-array's quantileSorted:
 * the d3 scales' own library; an ES module, hence import()). d3 reads only the ranks it interpolates
 * between, each one read of the store's ordered durations, so the log must still be open.
 */
async function latencyOf(durations: ReturnType<typeof queryModelDurations>): Promise<Map<string | null, UsageGroup['latency_ms']>> {
  const { quantileSorted } = await import('d3-array');
  const out = new Map<string | null, UsageGroup['latency_ms']>();
  for (const d of durations.values()) {
    if (d.count === 0) continue;
    const ranks = new Array<number>(d.count); // holes: only its length is read
    const q = (p: number) => Math.round(quantileSorted(ranks, p, (_v, i) => d.at(i))!);
    out.set(d.model === null ? null : `${d.model}${d.provider ? ` (${d.provider})` : ''}`, { timed_calls: d.count, p50: q(0.5), p95: q(0.95), max: d.at(d.count - 1) });
  }
  return out;
}

function addLatency(groups: Map<string | null, UsageGroup>, latency: Map<string | null, UsageGroup['latency_ms']>): void {
  for (const [key, g] of groups) g.latency_ms = latency.get(key) ?? null;
}

const modelKey = (r: UsageRow) => (r.model === null ? null : `${r.model}${r.provider ? ` (${r.provider})` : ''}`);

/**
 * The rows summed per group (and, with `breakdown`, per model inside each group: ccusage's daily
 * report by model, issue 24 item 11), each priced from the catalog.
 */
function groupRows(rows: UsageRow[], o: { by: UsageGrouping; utc: boolean; catalog: ReturnType<typeof loadCatalog>; overrides: ReturnType<typeof loadOverrides>; breakdown: boolean }) {
  const groups = new Map<string | null, UsageGroup>();
  const totals = emptyGroup('total');
  const perModel = new Map<UsageGroup, Map<string | null, UsageGroup>>();
  for (const r of rows) {
    const m = matchModel(r.model, r.provider, o.catalog, o.overrides);
    const estimate = m.priced ? estimateCost(r, m.rates) : undefined;
    const name = r.model ?? '(no model)';
    const key = o.by === 'model'
      ? modelKey(r)
      : CALENDARS.has(o.by) ? calendarLabel(Number(BigInt(r.grp!) * QUARTER_HOUR_NS / 1_000_000n), o.by as Calendar, o.utc) : (r.grp as string | null);
    if (!groups.has(key)) groups.set(key, emptyGroup(key));
    const g = groups.get(key)!;
    add(g, r, estimate, name);
    add(totals, r, estimate, name);
    if (o.breakdown) {
      if (!perModel.has(g)) perModel.set(g, new Map());
      const models = perModel.get(g)!;
      const mk = modelKey(r);
      if (!models.has(mk)) models.set(mk, emptyGroup(mk));
      add(models.get(mk)!, r, estimate, name);
    }
  }
  for (const [g, models] of perModel) g.models = [...models.values()].sort((a, b) => tokens(b) - tokens(a));
  return { groups, totals };
}

const tokens = (g: UsageGroup) => g.usage.input_tokens + g.usage.output_tokens + g.usage.cache_read_input_tokens + g.usage.cache_creation_input_tokens;
const n = (x: number) => x.toLocaleString('en-US');

function merge(into: UsageGroup, g: UsageGroup): void {
  into.model_calls += g.model_calls;
  into.total_tokens += g.total_tokens;
  for (const k of Object.keys(into.usage) as (keyof Usage)[]) into.usage[k] += g.usage[k];
  if (g.reported_cost_usd !== null) into.reported_cost_usd = (into.reported_cost_usd ?? 0) + g.reported_cost_usd;
  if (g.estimated_cost_usd !== null) into.estimated_cost_usd = (into.estimated_cost_usd ?? 0) + g.estimated_cost_usd;
  into.unpriced_model_calls += g.unpriced_model_calls;
  for (const m of g.unpriced_models) if (!into.unpriced_models.includes(m)) into.unpriced_models.push(m);
}

function renderTable(groups: UsageGroup[], totals: UsageGroup, by: UsageGrouping, maxWidth?: number): string {
  const latency = by === 'model';
  const head = [by.toUpperCase(), 'CALLS', 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'TOTAL TOKENS', 'REASONING', ...(latency ? ['P50', 'P95'] : []), 'REPORTED', 'EST. LIST'];
  const ms = (g: UsageGroup, k: 'p50' | 'p95') => (g.latency_ms ? formatDuration(BigInt(g.latency_ms[k]) * 1_000_000n) : '-');
  const row = (g: UsageGroup, label: string) => [
    label, n(g.model_calls), n(g.usage.input_tokens), n(g.usage.output_tokens), n(g.usage.cache_read_input_tokens), n(g.usage.cache_creation_input_tokens),
    n(g.total_tokens), n(g.usage.reasoning_output_tokens), ...(latency ? [ms(g, 'p50'), ms(g, 'p95')] : []), usd(g.reported_cost_usd), `${usd(g.estimated_cost_usd)}${g.unpriced_model_calls > 0 ? '*' : ''}`,
  ];
  // a group's name is recorded content (a model, a session id): escaped, one line (issue 22 item 15)
  const rows = safeCells([head, ...groups.flatMap((g) => [row(g, g.key ?? '(none)'), ...(g.models ?? []).map((m) => row(m, `  └ ${m.key ?? '(no model)'}`))]), row(totals, 'TOTAL')]);
  // numbers right-aligned; the group names give way when the terminal is narrow
  const widths = fitWidths(rows, maxWidth, [0]);
  const line = (r: string[]) => cut(r.map((c, i) => (i === 0 ? cut(c, widths[i]!).padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '), maxWidth ?? Infinity);
  return rows.map(line).join('\n') + (totals.unpriced_model_calls > 0 ? '\n* some calls unpriced: see below' : '');
}

