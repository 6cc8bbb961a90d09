import type Database from 'better-sqlite3';
import { DURATION_SQL } from '../log/schema';
import { hasIndex } from './indexes';
import { modelCallWhere, type UsageFilter } from './usage';

/**
 * The timed calls of one model and provider, in ascending order of duration: `count` of them, and
 * `at(i)` the i-th shortest (what a quantile is interpolated from, so no caller holds all of them).
 */
export interface ModelDurations {
  model: string | null;
  provider: string | null;
  count: number;
  at(i: number): number;
}

/** A duration that counts: a finite, non-negative number (json_extract's text, NULL and ±Inf do not). */
const TIMED = `${DURATION_SQL} >= 0 AND ${DURATION_SQL} < 9e999`;

/**
 * How long each model call took (`gen_ai.duration_ms`: the span's end minus its start, or what the
 * agent reported), per model and provider: what latency percentiles are computed from (issue 24
 * item 11). Calls without a duration are left out, and counted apart by the caller.
 *
 * Over the whole log (or one model) the durations come from `events_latency` (v5), ordered by
 * duration within each model: a percentile is one index seek with an offset, so 500k calls are never
 * read. A window, session or harness filter reads the selected calls' durations from their records.
 */
export function queryModelDurations(db: Database.Database, filter: UsageFilter): Map<string, ModelDurations> {
  const byIndex = filter.sinceNs === undefined && filter.untilNs === undefined && filter.sessionId === undefined && filter.harness === undefined && hasIndex(db, 'events_latency');
  return byIndex ? fromIndex(db, filter) : fromRecords(db, filter);
}

function fromIndex(db: Database.Database, filter: UsageFilter): Map<string, ModelDurations> {
  const { where, params } = modelCallWhere(filter);
  const cond = `${where.join(' AND ')} AND ${TIMED}`;
  const groups = db.prepare(`SELECT model, provider, count(*) AS n FROM events INDEXED BY events_latency WHERE ${cond} GROUP BY model, provider`).all(...params) as { model: string | null; provider: string | null; n: number }[];
  const nth = db.prepare(`SELECT ${DURATION_SQL} FROM events INDEXED BY events_latency WHERE ${cond} AND model IS ? AND provider IS ? ORDER BY ${DURATION_SQL} LIMIT 1 OFFSET ?`).pluck();
  const out = new Map<string, ModelDurations>();
  for (const g of groups) out.set(JSON.stringify([g.model, g.provider]), { model: g.model, provider: g.provider, count: g.n, at: (i) => nth.get(...params, g.model, g.provider, i) as number });
  return out;
}

function fromRecords(db: Database.Database, filter: UsageFilter): Map<string, ModelDurations> {
  const { where, params } = modelCallWhere(filter);
  // v4 and older: the usage index finds the calls. v5 dropped it: a window is a range of events_ts, a session one of events_session.
  const index = ['events_usage', filter.sinceNs !== undefined || filter.untilNs !== undefined ? 'events_ts' : filter.sessionId !== undefined ? 'events_session' : 'events_latency'].find((i) => hasIndex(db, i));
  const rows = db
    .prepare(`SELECT model, provider, ${DURATION_SQL} AS ms FROM events ${index ? `INDEXED BY ${index}` : ''} WHERE ${where.join(' AND ')}`)
    .all(...params) as { model: string | null; provider: string | null; ms: unknown }[];
  const lists = new Map<string, { model: string | null; provider: string | null; ms: number[] }>();
  for (const r of rows) {
    if (typeof r.ms !== 'number' || !Number.isFinite(r.ms) || r.ms < 0) continue;
    const key = JSON.stringify([r.model, r.provider]);
    if (!lists.has(key)) lists.set(key, { model: r.model, provider: r.provider, ms: [] });
    lists.get(key)!.ms.push(r.ms);
  }
  const out = new Map<string, ModelDurations>();
  for (const [key, v] of lists) {
    v.ms.sort((a, b) => a - b);
    out.set(key, { model: v.model, provider: v.provider, count: v.ms.length, at: (i) => v.ms[i]! });
  }
  return out;
}
