import type Database from 'better-sqlite3';
import { TEST_SESSION_RANGE } from '../../model/send-test';
import type { TieredTokenTotals } from '../../model/usage';
import { hasIndex, hasTable } from './indexes';
import type { Calendar } from '../../model/time';
import { CELL_SUMS_SQL, CELLS, QUARTER_HOUR_NS } from '../log/usage-cells';
import { RUN_REPORT_SUMS_SQL, USAGE_SUMS_SQL, usageRowOf } from './usage-sums';
import { calendarUnits } from './usage-calendar';

export type UsageGrouping = 'session' | 'model' | 'provider' | 'harness' | 'hour' | 'day' | 'week' | 'month';
export const USAGE_GROUPINGS: readonly UsageGrouping[] = ['model', 'session', 'provider', 'harness', 'hour', 'day', 'week', 'month'];

export interface UsageFilter {
  sinceNs?: bigint;
  untilNs?: bigint;
  sessionId?: string;
  /** exact model name or its prefix (`claude-sonnet-4-5` matches its dated versions) */
  model?: string;
  harness?: string;
}

/** Sums of one (group, model, provider); `above[T]` holds the part from calls whose prompt exceeded T (each long-context threshold). */
export interface UsageRow extends TieredTokenTotals {
  /** the group's key; for hour/day/week/month the quarter-hour index (see QUARTER_HOUR_NS) */
  grp: string | number | null;
  model: string | null;
  provider: string | null;
  calls: number;
  reasoning: number;
  reportedCost: number | null;
  reportedCalls: number;
}

/** Calendar groupings come back as quarter-hour indexes (see usage-cells.ts). */
export { QUARTER_HOUR_NS } from '../log/usage-cells';

function groupSql(by: UsageGrouping, cells = false): string {
  switch (by) {
    case 'session':
      return cells ? "nullif(session_id, x'')" : 'session_id';
    case 'model':
    case 'provider':
      return cells ? `nullif(${by}, x'')` : by;
    case 'harness':
      return 'harness';
    default:
      return cells ? 'bucket' : `(ts_ns / ${QUARTER_HOUR_NS})`;
  }
}

/**
 * Model calls aggregated per (group, model, provider). Every model call is one `model.invoked` event
 * with disjoint buckets, so sums count each token once; goose's session-cumulative stream reports
 * (`usage.reported`) are not model calls. The whole quarter hours of the window come from the
 * persisted cells (log/usage-cells.ts), its partial edges (a --since or --until inside a quarter
 * hour) from the events' rows: the answer is the exact aggregate of the calls in the window,
 * whichever part it came from. A log without cells (read-only, left by an older Beacon) is read
 * from its usage index alone.
 *
 * `calendar` (hour, day, week, month): the cells are summed per calendar unit of that zone
 * (usage-calendar.ts) instead of per quarter hour, and such a row's `grp` is the unit's first quarter
 * hour in the window: its label is the unit's. A month of busy use is ~3k quarter hours × models, and
 * handing each row to JavaScript cost more than summing it (issue 31: 4.4k rows, ~40 ms in
 * better-sqlite3 against ~6 ms for 180 per day). The edges' rows stay per quarter hour, so a caller
 * sums rows per label, as it does anyway. Not with a session filter (its cells are keyed session
 * first: each would scan every unit) nor past MAX_CALENDAR_UNITS: per quarter hour, as before.
 */
export function queryUsage(db: Database.Database, filter: UsageFilter, by: UsageGrouping, calendar?: { utc: boolean }): UsageRow[] {
  const parts = [...callParts(db, filter, by, calendar), runReportsPart(filter, by)];
  // In the order the rows' GROUP BY gave before v5 (NULL first), which lists show: the cells keep a NULL as x'', last.
  // a group whose calls were all --send-test's (taken out below) has nothing left: no row
  const sql = `SELECT grp, model, provider, ${CELL_SUMS_SQL} FROM (${parts.map((p) => p.sql).join(' UNION ALL ')}) GROUP BY grp, model, provider
    HAVING sum(calls) <> 0 OR sum(input) <> 0 OR sum(output) <> 0 OR sum(cacheRead) <> 0 OR sum(cacheWrite) <> 0 ORDER BY grp, model, provider`;
  const params = parts.flatMap((p) => p.params);
  return (db.prepare(sql).all(...params) as Record<string, unknown>[]).map((flat) => usageRowOf(flat) as unknown as UsageRow);
}

/** The model calls' parts of a window: the cells of its whole quarter hours, the rows of its partial edges. */
function callParts(db: Database.Database, filter: UsageFilter, by: UsageGrouping, calendar?: { utc: boolean }): Part[] {
  // a log opened read-only that an older Beacon left (v4 or before) has no cells
  if (!hasTable(db, CELLS.total)) return [indexQuery(db, filter, by)];
  // The cells' quarter hours [lo, hi): those wholly inside the window.
  const lo = filter.sinceNs === undefined ? undefined : ceilDiv(filter.sinceNs, QUARTER_HOUR_NS);
  const hi = filter.untilNs === undefined ? undefined : floorDiv(filter.untilNs, QUARTER_HOUR_NS);
  if (lo !== undefined && hi !== undefined && lo >= hi) return [indexQuery(db, filter, by)];
  const units = calendar && filter.sessionId === undefined && isCalendar(by) ? unitsOf(db, lo, hi, by, calendar.utc) : undefined;
  const parts = [cellsQuery(filter, by, lo, hi, units)];
  // The totals' cells hold --send-test's calls too: the session cells of those sessions, taken away.
  if (by !== 'session' && filter.sessionId === undefined) parts.push(cellsQuery(filter, by, lo, hi, units, 'subtract test sessions'));
  if (lo !== undefined && lo * QUARTER_HOUR_NS !== filter.sinceNs) parts.push(indexQuery(db, { ...filter, untilNs: lo * QUARTER_HOUR_NS }, by));
  if (hi !== undefined && hi * QUARTER_HOUR_NS !== filter.untilNs) parts.push(indexQuery(db, { ...filter, sinceNs: hi * QUARTER_HOUR_NS }, by));
  return parts;
}

/**
 * Usage an agent's stream reported (`usage.reported` with usage_scope run — Codex's turn, Gemini's
 * and Claude's result — or call, opencode's steps) stands in for the session's model calls only when
 * none of them arrived one by one (`model.invoked`, from OTLP or hooks): per-call records are exact,
 * and counting both would count every token twice. A report without a session joins nothing and is counted. Not model
 * calls: they add tokens, no calls. (goose's session-cumulative `complete` reports are never added.)
 */
function runReportsPart(filter: UsageFilter, by: UsageGrouping): Part {
  const { where, params } = eventWhere(filter, 'usage.reported');
  where.push(`json_extract(record, '$.raw.usage_scope') IN ('run', 'call')`);
  where.push(`(session_id IS NULL OR NOT EXISTS (SELECT 1 FROM events calls WHERE calls.session_id = reports.session_id AND calls.action = 'model.invoked'))`);
  const sql = `SELECT ${groupSql(by)} AS grp, model, provider, ${RUN_REPORT_SUMS_SQL}
    FROM events AS reports WHERE ${where.join(' AND ')}
    GROUP BY grp, model, provider`;
  return { sql, params };
}

interface Part {
  sql: string;
  params: unknown[];
}

/**
 * The calls of a window summed from their rows (the exact aggregate): through the usage index of a
 * log older than v5, else (v5 reads only windows' edges this way) through the time index.
 */
function indexQuery(db: Database.Database, filter: UsageFilter, by: UsageGrouping): Part {
  const { where, params } = modelCallWhere(filter);
  const windowed = filter.sinceNs !== undefined || filter.untilNs !== undefined;
  const index = hasIndex(db, 'events_usage') ? 'events_usage' : windowed && hasIndex(db, 'events_ts') ? 'events_ts' : undefined;
  const sql = `SELECT ${groupSql(by)} AS grp, model, provider, ${USAGE_SUMS_SQL}
    FROM events ${index ? `INDEXED BY ${index}` : ''} WHERE ${where.join(' AND ')}
    GROUP BY grp, model, provider`;
  return { sql, params };
}

/**
 * The cells of the quarter hours [lo, hi) that the filter selects, summed per group (the same filters
 * as `modelCallWhere`). Grouped by the cells' own columns, so usage by session follows the session
 * cells' key order; NULLs come back from their x'' (usage-cells.ts).
 */
function cellsQuery(filter: UsageFilter, by: UsageGrouping, lo: bigint | undefined, hi: bigint | undefined, units: Units | undefined, tests?: 'subtract test sessions'): Part {
  const where = ['1'];
  // the units' JSON is the FROM clause's parameter, before the WHERE clause's
  const params: unknown[] = units ? [JSON.stringify(units)] : [];
  const table = tests || by === 'session' || filter.sessionId !== undefined ? CELLS.session : CELLS.total;
  if (tests) (where.push('session_id >= ? AND session_id < ?'), params.push(...TEST_SESSION_RANGE));
  else if (table === CELLS.session) (where.push('NOT (session_id >= ? AND session_id < ?)'), params.push(...TEST_SESSION_RANGE));
  if (lo !== undefined) (where.push('bucket >= ?'), params.push(lo));
  if (hi !== undefined) (where.push('bucket < ?'), params.push(hi));
  if (filter.sessionId !== undefined) (where.push('session_id = ?'), params.push(filter.sessionId));
  if (filter.harness !== undefined) (where.push('harness = ?'), params.push(filter.harness));
  if (filter.model !== undefined) (where.push("(model = ? OR substr(model, 1, length(?)) = ?)"), params.push(filter.model, filter.model, filter.model));
  const column = by === 'session' ? 'session_id' : by === 'model' || by === 'provider' || by === 'harness' ? by : 'bucket';
  // The table's own columns (the result's aliases shadow them): the session cells' key order is session_id, model, provider.
  const group = [...new Set([column, 'model', 'provider'])].map((c) => `${table}.${c}`);
  const sums = tests ? CELL_SUMS_SQL.replace(/sum\((\w+)\)/g, '-sum($1)') : CELL_SUMS_SQL;
  // per unit: each unit a key range of the totals' cells (bucket first), found by the join
  const from = units ? `json_each(?) AS unit JOIN ${table} ON ${table}.bucket >= unit.value ->> 0 AND ${table}.bucket < unit.value ->> 1` : table;
  const sql = `SELECT ${units ? 'unit.value ->> 0' : groupSql(by, true)} AS grp, nullif(model, x'') AS model, nullif(provider, x'') AS provider, ${sums}
    FROM ${from} WHERE ${where.join(' AND ')} GROUP BY ${units ? ['unit.key', ...group.slice(1)].join(', ') : group.join(', ')}`;
  return { sql, params };
}

/** Calendar units as quarter hours [start, end) (usage-calendar.ts). */
type Units = [number, number][];

const isCalendar = (by: UsageGrouping): by is Calendar => by === 'hour' || by === 'day' || by === 'week' || by === 'month';

/** The calendar units over the quarter hours the totals' cells hold in [lo, hi) (two key seeks), or undefined: too many. */
function unitsOf(db: Database.Database, lo: bigint | undefined, hi: bigint | undefined, by: Calendar, utc: boolean): Units | undefined {
  const span = db.prepare(`SELECT min(bucket) AS first, max(bucket) AS last FROM ${CELLS.total} WHERE bucket >= ? AND bucket < ?`)
    .get(lo ?? Number.MIN_SAFE_INTEGER, hi ?? Number.MAX_SAFE_INTEGER) as { first: number | null; last: number | null };
  return span.first === null || span.last === null ? [] : calendarUnits(span.first, span.last, by, utc);
}

const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
const ceilDiv = (a: bigint, b: bigint) => -floorDiv(-a, b);

/** The model calls a usage filter selects, as SQL conditions (shared with the latency query). */
export function modelCallWhere(filter: UsageFilter): { where: string[]; params: unknown[] } {
  return eventWhere(filter, 'model.invoked');
}

/** A literal action, never a parameter: the partial indexes (`WHERE action = 'model.invoked'`) serve only a query that names it. */
function eventWhere(filter: UsageFilter, action: 'model.invoked' | 'usage.reported'): { where: string[]; params: unknown[] } {
  // never --send-test's records (model/send-test.ts); a call of no session is counted
  const where = [`action = '${action}'`, '(session_id IS NULL OR NOT (session_id >= ? AND session_id < ?))'];
  const params: unknown[] = [...TEST_SESSION_RANGE];
  if (filter.sinceNs !== undefined) (where.push('ts_ns >= ?'), params.push(filter.sinceNs));
  if (filter.untilNs !== undefined) (where.push('ts_ns < ?'), params.push(filter.untilNs));
  if (filter.sessionId !== undefined) (where.push('session_id = ?'), params.push(filter.sessionId));
  if (filter.harness !== undefined) (where.push('harness = ?'), params.push(filter.harness));
  if (filter.model !== undefined) (where.push("(model = ? OR substr(model, 1, length(?)) = ?)"), params.push(filter.model, filter.model, filter.model));
  return { where, params };
}

export interface StreamReport {
  tsNs: bigint;
  record: string;
}

/** goose's stream `complete` reports (session-cumulative, with a reported cost), newest first; other agents' run reports are counted in queryUsage. */
export function queryStreamReports(db: Database.Database, filter: UsageFilter, limit = 20): { count: number; latest: StreamReport[] } {
  const where = ["action = 'usage.reported'", "coalesce(json_extract(record, '$.raw.usage_scope'), '') NOT IN ('run', 'call')"];
  const params: unknown[] = [];
  if (filter.sinceNs !== undefined) (where.push('ts_ns >= ?'), params.push(filter.sinceNs));
  if (filter.untilNs !== undefined) (where.push('ts_ns < ?'), params.push(filter.untilNs));
  if (filter.sessionId !== undefined) (where.push('session_id = ?'), params.push(filter.sessionId));
  const cond = where.join(' AND ');
  const hint = hasIndex(db, 'events_stream_usage') ? 'INDEXED BY events_stream_usage' : '';
  const count = (db.prepare(`SELECT count(*) AS n FROM events ${hint} WHERE ${cond}`).get(...params) as { n: number }).n;
  const latest = db.prepare(`SELECT ts_ns AS tsNs, record FROM events ${hint} WHERE ${cond} ORDER BY ts_ns DESC LIMIT ?`).safeIntegers(true).all(...params, limit) as StreamReport[];
  return { count, latest };
}
