import { resolveEventLogPath } from '../../config/paths';
import { BeaconError } from '../../model/errors';
import { harnessOption, unknownHarnessHint } from '../../model/harness';
import { didYouMean } from '../../model/suggest';
import { calendarLabel, formatDisplayTime, formatTimestamp, type Calendar } from '../../model/time';
import { loadCatalog, loadOverrides, overridesPath } from '../../pricing/catalog';
import { costDecimals, costRounder } from '../../pricing/precision';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configOption } from '../config-flags';
import { plural } from '../format';
import { noLogMessage, openConnectionForReading, timeRange } from '../log-access';
import { tableWidth } from '../table';
import { emptyGroup, groupRows, merge, modelKey, usageFooter, usageTable, type UsageGroup } from '../usage-report';
import { openReadOnlyLog, type ReadOnlyLog } from '../../store/log/log-open';
import { STORE_SCHEMA_VERSION } from '../../store/log/schema';
import { QUARTER_HOUR_NS, USAGE_GROUPINGS, queryStreamReports, queryUsage, type UsageFilter, type UsageGrouping, type UsageRow } from '../../store/queries/usage';
import { compareLabels } from '../../model/digits';

/**
 * What only some reports use, loaded when they run (a plain `--by day` is timed against a bare Node
 * start, issue 33): the blocks, the latency, the sessions' origins (the sessions query's modules)
 * and goose's session total.
 */
const blocksReport = () => require('../usage-blocks') as typeof import('../usage-blocks');
const blocksQuery = () => require('../../store/queries/usage-blocks') as typeof import('../../store/queries/usage-blocks');
const latencyQuery = () => require('../../store/queries/latency') as typeof import('../../store/queries/latency');
const originsQuery = () => require('../../store/queries/usage-origins') as typeof import('../../store/queries/usage-origins');
const sessionTotal = () => require('../../store/queries/session-total') as typeof import('../../store/queries/session-total');

/** The store's groupings, and two made from them: repository (each session's) and ccusage's 5-hour blocks. */
type ReportGrouping = UsageGrouping | 'repository' | 'block';
const REPORT_GROUPINGS: readonly ReportGrouping[] = [...USAGE_GROUPINGS.slice(0, 2), 'repository', ...USAGE_GROUPINGS.slice(2), 'block'];
const CALENDARS = new Set<ReportGrouping>(['hour', 'day', 'week', 'month']);

export const spec = {
  name: 'beacon token-usage',
  summary: 'tokens and cost per model, session, repository, provider, agent, day, week, month or 5-hour block',
  usage: '[--log PATH] [--since T] [--until T] [--session ID] [--model M] [--harness H] [--by model|session|repository|provider|harness|hour|day|week|month|block] [--breakdown] [--top N] [--json] [--utc]',
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
    by: { type: 'string', arg: 'G', help: 'group by model (default), session (with its date, agent, models and repository), repository, provider, harness (the agent), hour, day, week, month or block (5-hour blocks as ccusage blocks: the active one with its burn rate and projection)' },
    top: { type: 'string', arg: 'N', help: 'the N largest groups, the rest summed in one "others" row (0 = all)' },
    breakdown: { type: 'boolean', help: 'each group split by model (tokens per day by model: --by day --breakdown)' },
    json: { type: 'boolean', help: 'the report as one JSON document (schema beacon.token-usage/v1)' },
    utc: { type: 'boolean', help: 'calendar groups in UTC instead of the local zone' },
  },
  examples: ['beacon token-usage', 'beacon token-usage --by day --since 7d', 'beacon token-usage --by day --breakdown', 'beacon token-usage --by session --top 10', 'beacon token-usage --by block --since 1d', 'beacon token-usage --by month --json'],
} as const satisfies CommandSpec;

export async function run(argv: string[], { env, out, stderr: err }: Pick<CommandIO, 'env' | 'out' | 'stderr'>): Promise<number> {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values } = parsed;
  const by = (values.by ?? 'model') as ReportGrouping;
  if (!REPORT_GROUPINGS.includes(by)) throw new BeaconError('usage', `--by must be ${REPORT_GROUPINGS.join(', ')}, got ${values.by}${didYouMean(values.by ?? '', REPORT_GROUPINGS)}`);
  const utc = values.utc === true;
  const top = values.top === undefined ? 0 : /^\d+$/.test(values.top) ? Number(values.top) : NaN;
  if (!Number.isInteger(top) || top < 0) throw new BeaconError('usage', `--top must be a whole number (0 = all), got ${values.top}`);
  const { sinceNs, untilNs } = timeRange(values.since, values.until, utc);
  const filter: UsageFilter = { sinceNs, untilNs, sessionId: values.session, model: values.model, harness: values.harness === undefined ? undefined : harnessOption(values.harness) };
  const path = resolveEventLogPath(values.log, env);
  const catalog = loadCatalog();
  const overrides = loadOverrides(overridesPath(env));

  // never creates a log; a directory or foreign file is an error. The connection alone: the writer's
  // modules (joins, merges, node:crypto) are loaded only to migrate an older log
  const reader = openConnectionForReading(path);
  if (!reader && !values.json) {
    out(noLogMessage(path));
    return 0;
  }
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const read = reader ? await readUsage(reader, filter, by, utc) : { rows: [], latency: new Map(), stream: { count: 0, latest: [] }, blocks: [] };

  const keyOf = (r: UsageRow) => (by === 'model' ? modelKey(r) : CALENDARS.has(by) ? calendarLabel(Number(BigInt(r.grp!) * QUARTER_HOUR_NS / 1_000_000n), by as Calendar, utc) : (r.grp as string | null));
  const { groups, totals } = groupRows(read.rows, keyOf, { catalog, overrides, breakdown: values.breakdown === true && by !== 'model' });
  if (by === 'model') addLatency(groups, read.latency);
  if (by === 'block') blocksReport().addBlocks(groups, read.blocks, nowNs, utc);
  let list = [...groups.values()];
  list.sort(CALENDARS.has(by) || by === 'block' ? (a, b) => compareLabels(String(a.key), String(b.key)) : (a, b) => b.total_tokens - a.total_tokens || compareLabels(String(a.key), String(b.key)));
  // --top: the rest is summed into one "others" group, so the groups shown still add up to the total.
  let others: UsageGroup | null = null;
  if (top > 0 && list.length > top) {
    others = emptyGroup(`(${plural(list.length - top, 'other')})`);
    for (const g of list.slice(top)) merge(others, g);
    list = list.slice(0, top);
  }
  if (by === 'session' && reader) addSessionFacts(path, list, read.rows, values.json === true, utc);

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
      count: read.stream.count,
      latest: read.stream.latest.map((s) => {
        const rec = JSON.parse(s.record);
        return { timestamp: rec.timestamp, session: rec.session?.id ?? null, model: rec.model ?? null, usage: rec.gen_ai?.usage ?? {} };
      }),
    },
  };
  // With --session: goose's own session total (its newest stream report) beside the per-call sum.
  const reconciliation = values.session !== undefined ? sessionTotal().reconcileSession(report.stream_reports.latest[0], totals.model_calls, totals.total_tokens) : undefined;
  if (values.json) {
    // costs to the catalog's precision: the digits past it are floating-point noise of the sums
    out(JSON.stringify(reconciliation ? { ...report, session_reconciliation: reconciliation } : report, costRounder(costDecimals(catalog, overrides))));
    return 0;
  }
  const width = tableWidth(env);
  const hint = totals.model_calls === 0 && values.harness !== undefined ? unknownHarnessHint(values.harness) : '';
  if (hint !== '') err(`beacon token-usage: no model calls match${hint}\n`);
  out(usageTable(others ? [...report.groups, others] : report.groups, totals, by, width));
  out('');
  const extra = [
    ...(reconciliation ? [sessionTotal().reconciliationLine(reconciliation)] : []),
    ...(read.stream.count > 0 ? [`stream reports: ${plural(read.stream.count, 'goose stream-json run')} reported session-cumulative usage (not added above); see --json`] : []),
    ...(by === 'block' ? blocksReport().activeBlockLines(list) : []),
  ];
  const catalogText = `${report.price_catalog.source} @ ${catalog.source.commit.slice(0, 8)} (${catalog.source.content_as_of})${overrides ? ` and your overrides ${overrides.path}` : ''}`;
  for (const line of usageFooter({ totals, catalogText, overridesHint: overridesPath(env), extra }, width)) out(line);
  return 0;
}

/**
 * The usage sums (the rollup and the usage index), the model calls' latency (by model only), the
 * blocks (by block) and goose's stream reports. On the read-only connection the command opened when
 * its log is of this Beacon's schema; an older log is opened read-write instead, so it gets its rollup
 * and indexes (a one-time migration), or read-only again when it cannot be written. One connection,
 * not two: each open prepares the writer's statements and reads the schema (~10 ms of a `--by day`).
 */
async function readUsage(reader: ReadOnlyLog, filter: UsageFilter, by: ReportGrouping, utc: boolean) {
  let log = reader;
  if (reader.db.pragma('user_version', { simple: true }) !== STORE_SCHEMA_VERSION) {
    reader.close();
    const { EventLog } = require('../../store/log/event-log') as typeof import('../../store/log/event-log');
    try {
      log = EventLog.open(reader.path);
    } catch {
      log = EventLog.open(reader.path, { readonly: true });
    }
  }
  try {
    const blocks = by === 'block' ? blocksQuery().queryUsageBlocks(log.db, filter) : [];
    const rows = by === 'repository' ? originsQuery().queryUsageByRepository(log.db, filter)
      : by === 'block' ? blocks.flatMap((b) => b.rows.map((r) => ({ ...r, grp: blocksReport().blockLabel(b.startNs, utc) })))
      : queryUsage(log.db, filter, by, CALENDARS.has(by) ? { utc } : undefined); // a calendar's rows per unit: labelled as its first quarter hour
    return {
      rows,
      blocks,
      latency: by === 'model' ? await latencyOf(latencyQuery().queryModelDurations(log.db, filter)) : new Map<string | null, UsageGroup['latency_ms']>(),
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
async function latencyOf(durations: ReturnType<ReturnType<typeof latencyQuery>['queryModelDurations']>): Promise<Map<string | null, UsageGroup['latency_ms']>> {
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


/** --by session: each listed session's dates, agent, models and repository (ccusage's session report). */
function addSessionFacts(path: string, groups: UsageGroup[], rows: readonly UsageRow[], json: boolean, utc: boolean): void {
  const models = new Map<unknown, Set<string>>();
  for (const r of rows) if (r.model !== null) models.set(r.grp, (models.get(r.grp) ?? new Set()).add(r.model));
  const log = openReadOnlyLog(path);
  try {
    const facts = originsQuery().sessionFacts(log.db, groups.flatMap((g) => (g.key === null ? [] : [g.key])));
    const time = (ns: bigint) => (json ? formatTimestamp(ns) : formatDisplayTime(ns, utc).slice(0, 16));
    for (const g of groups) {
      const f = g.key === null ? undefined : facts.get(g.key);
      if (!f) continue;
      g.session = { start: time(f.firstNs), end: time(f.lastNs), agent: f.harness, repository: f.repository, branch: f.branch, models: [...(models.get(g.key) ?? [])].sort() };
    }
  } finally {
    log.close();
  }
}
