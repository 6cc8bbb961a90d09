import type Database from 'better-sqlite3';
import { hasIndex } from './indexes';
import { USAGE_SUMS_SQL, usageRowOf } from './usage-sums';

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

export interface TokenBuckets {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Sums of one (group, model, provider); `above[T]` holds the part from calls whose prompt exceeded T (each long-context threshold). */
export interface UsageRow {
  /** the group's key; for hour/day/week/month the quarter-hour index (see QUARTER_HOUR_NS) */
  grp: string | number | null;
  model: string | null;
  provider: string | null;
  calls: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  reportedCost: number | null;
  reportedCalls: number;
  above: Record<number, TokenBuckets>;
}

/** Where usage sums come from: `queryUsage` (the index), or a `UsageRollup` kept in memory by a long-lived reader. */
export type UsageSource = (filter: UsageFilter, by: UsageGrouping) => UsageRow[];

/**
 * Calendar groupings come back as quarter-hour indexes (ns / 15 min, UTC): the caller labels them
 * hour, day, week or month in the user's zone. SQLite's `localtime` would need the system's tz
 * files and could disagree with the zone Node shows times in; every UTC offset in use is a multiple
 * of 15 minutes, so quarter hours fall inside one local hour.
 */
export const QUARTER_HOUR_NS = 900_000_000_000n;

function groupSql(by: UsageGrouping): string {
  switch (by) {
    case 'session':
      return 'session_id';
    case 'model':
      return 'model';
    case 'provider':
      return 'provider';
    case 'harness':
      return 'harness';
    default:
      return `(ts_ns / ${QUARTER_HOUR_NS})`;
  }
}

/**
 * Model calls aggregated per (group, model, provider), read from the `events_usage` partial index
 * alone. Every model call is one `model.invoked` event with disjoint buckets, so sums count each
 * token once; goose's session-cumulative stream reports (`usage.reported`) are not model calls.
 */
export function queryUsage(db: Database.Database, filter: UsageFilter, by: UsageGrouping): UsageRow[] {
  const { where, params } = modelCallWhere(filter);
  const sql = `SELECT ${groupSql(by)} AS grp, model, provider, ${USAGE_SUMS_SQL}
    FROM events ${hasIndex(db, 'events_usage') ? 'INDEXED BY events_usage' : ''} WHERE ${where.join(' AND ')}
    GROUP BY grp, model, provider`;
  return (db.prepare(sql).all(...params) as Record<string, unknown>[]).map((flat) => usageRowOf(flat) as unknown as UsageRow);
}

/** The model calls a usage filter selects, as SQL conditions (shared with the latency query). */
export function modelCallWhere(filter: UsageFilter): { where: string[]; params: unknown[] } {
  const where = ["action = 'model.invoked'"];
  const params: unknown[] = [];
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

/** goose's stream `complete` reports (session-cumulative, with a reported cost), newest first. */
export function queryStreamReports(db: Database.Database, filter: UsageFilter, limit = 20): { count: number; latest: StreamReport[] } {
  const where = ["action = 'usage.reported'"];
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
