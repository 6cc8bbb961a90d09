import type Database from 'better-sqlite3';
import { TEST_SESSION_RANGE } from '../../model/send-test';
import type { TieredTokenTotals } from '../../model/usage';
import { hasIndex, hasTable } from './indexes';
import { CELL_SUMS_SQL, CELLS, QUARTER_HOUR_NS } from '../log/usage-cells';
import { RUN_REPORT_SUMS_SQL, USAGE_SUMS_SQL, usageRowOf } from './usage-sums';

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
 */
export function queryUsage(db: Database.Database, filter: UsageFilter, by: UsageGrouping): UsageRow[] {
  const parts = [...callParts(db, filter, by), runReportsPart(filter, by)];
  // In the order the rows' GROUP BY gave before v5 (NULL first), which lists show: the cells keep a NULL as x'', last.
  // a group whose calls were all --send-test's (taken out below) has nothing left: no row
  const sql = `SELECT grp, model, provider, ${CELL_SUMS_SQL} FROM (${parts.map((p) => p.sql).join(' UNION ALL ')}) GROUP BY grp, model, provider
    HAVING sum(calls) <> 0 OR sum(input) <> 0 OR sum(output) <> 0 OR sum(cacheRead) <> 0 OR sum(cacheWrite) <> 0 ORDER BY grp, model, provider`;
  const params = parts.flatMap((p) => p.params);
  return (db.prepare(sql).all(...params) as Record<string, unknown>[]).map((flat) => usageRowOf(flat) as unknown as UsageRow);
}

/** The model calls' parts of a window: the cells of its whole quarter hours, the rows of its partial edges. */
function callParts(db: Database.Database, filter: UsageFilter, by: UsageGrouping): Part[] {
  // a log opened read-only that an older Beacon left (v4 or before) has no cells
  if (!hasTable(db, CELLS.total)) return [indexQuery(db, filter, by)];
  // The cells' quarter hours [lo, hi): those wholly inside the window.
  const lo = filter.sinceNs === undefined ? undefined : ceilDiv(filter.sinceNs, QUARTER_HOUR_NS);
  const hi = filter.untilNs === undefined ? undefined : floorDiv(filter.untilNs, QUARTER_HOUR_NS);
  if (lo !== undefined && hi !== undefined && lo >= hi) return [indexQuery(db, filter, by)];
  const parts = [cellsQuery(filter, by, lo, hi)];
  // The totals' cells hold --send-test's calls too: the session cells of those sessions, taken away.
  if (by !== 'session' && filter.sessionId === undefined) parts.push(cellsQuery(filter, by, lo, hi, 'subtract test sessions'));
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
function cellsQuery(filter: UsageFilter, by: UsageGrouping, lo: bigint | undefined, hi: bigint | undefined, tests?: 'subtract test sessions'): Part {
  const where = ['1'];
  const params: unknown[] = [];
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
  const group = [...new Set([column, 'model', 'provider'])].map((c) => `${table}.${c}`).join(', ');
  const sums = tests ? CELL_SUMS_SQL.replace(/sum\((\w+)\)/g, '-sum($1)') : CELL_SUMS_SQL;
  const sql = `SELECT ${groupSql(by, true)} AS grp, nullif(model, x'') AS model, nullif(provider, x'') AS provider, ${sums}
    FROM ${table} WHERE ${where.join(' AND ')} GROUP BY ${group}`;
  return { sql, params };
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
