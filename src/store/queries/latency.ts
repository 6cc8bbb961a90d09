import type Database from 'better-sqlite3';
import { hasIndex } from './indexes';
import { modelCallWhere, type UsageFilter } from './usage';

/**
 * How long each model call took (`gen_ai.duration_ms`: the span's end minus its start, or what the
 * agent reported), per model and provider, sorted: what latency percentiles are computed from
 * (issue 24 item 11). Calls without a duration are left out, and counted apart by the caller.
 */
export function queryModelDurations(db: Database.Database, filter: UsageFilter): Map<string, { model: string | null; provider: string | null; ms: number[] }> {
  const { where, params } = modelCallWhere(filter);
  const hint = hasIndex(db, 'events_usage') ? 'INDEXED BY events_usage' : '';
  const rows = db
    .prepare(`SELECT model, provider, json_extract(record, '$.gen_ai.duration_ms') AS ms FROM events ${hint} WHERE ${where.join(' AND ')}`)
    .all(...params) as { model: string | null; provider: string | null; ms: unknown }[];
  const out = new Map<string, { model: string | null; provider: string | null; ms: number[] }>();
  for (const r of rows) {
    if (typeof r.ms !== 'number' || !Number.isFinite(r.ms) || r.ms < 0) continue;
    const key = JSON.stringify([r.model, r.provider]);
    if (!out.has(key)) out.set(key, { model: r.model, provider: r.provider, ms: [] });
    out.get(key)!.ms.push(r.ms);
  }
  for (const v of out.values()) v.ms.sort((a, b) => a - b);
  return out;
}
