import type Database from 'better-sqlite3';
import { modelCallWhere, type UsageFilter, type UsageGrouping, type UsageRow } from '../../src/store/queries/usage';
import { USAGE_SUMS_SQL, usageRowOf } from '../../src/store/queries/usage-sums';

/**
 * The exact aggregate the rollup must equal: every selected model call summed from its row (no
 * index, no cells), as `queryUsage` answered before schema v5. Rows sorted, costs rounded to 1e-9
 * (float sums in another order differ in their last bits), for deepEqual.
 */
export function rawUsage(db: Database.Database, filter: UsageFilter, by: UsageGrouping): UsageRow[] {
  const { where, params } = modelCallWhere(filter);
  const grp = by === 'session' ? 'session_id' : by === 'model' || by === 'provider' || by === 'harness' ? by : '(ts_ns / 900000000000)';
  const rows = db.prepare(`SELECT ${grp} AS grp, model, provider, ${USAGE_SUMS_SQL} FROM events NOT INDEXED WHERE ${where.join(' AND ')} GROUP BY grp, model, provider`).all(...params) as Record<string, unknown>[];
  return comparable(rows.map((r) => usageRowOf(r) as unknown as UsageRow));
}

export function comparable(rows: UsageRow[]): UsageRow[] {
  return rows
    .map((r) => ({ ...r, reportedCost: r.reportedCost === null ? null : Math.round(r.reportedCost * 1e9) / 1e9 }))
    .sort((a, b) => JSON.stringify([a.grp, a.model, a.provider]).localeCompare(JSON.stringify([b.grp, b.model, b.provider])));
}
