import { LONG_CONTEXT_THRESHOLDS, type TokenTotals } from '../../model/usage';
import { aboveName, BUCKET_COLUMNS } from '../log/usage-cells';
import type { UsageRow } from './usage';

import { USAGE_SUMS_SQL } from '../log/usage-cells';

export { USAGE_SUMS_SQL };

/** The same sums over run reports, which are no model calls: they add tokens and cost, never a call. */
export const RUN_REPORT_SUMS_SQL = USAGE_SUMS_SQL.replace(/^count\(\*\) AS calls,/, '0 AS calls,');
if (RUN_REPORT_SUMS_SQL === USAGE_SUMS_SQL) throw new Error('USAGE_SUMS_SQL no longer begins with its calls count');

/**
 * Usage rows as readers see them. The sums themselves are defined once, in log/usage-cells.ts
 * (`USAGE_SUMS_SQL` over rows, `USAGE_SUMS` per call for the persisted rollup's triggers).
 */

/** The long-context columns of a result row, folded into `above`. */
const ABOVE_COLUMNS = new Set(LONG_CONTEXT_THRESHOLDS.flatMap((t) => BUCKET_COLUMNS.map(([key]) => aboveName(key, t))));

/**
 * A result row of `USAGE_SUMS_SQL` (with its group columns) with the long-context columns folded into `above`.
 * Copied without them rather than deleted from a copy: a `delete` turns every row into a slow
 * dictionary object (a month's 4.4k rows: ~60 ms here and again in every read of them).
 */
export function usageRowOf<R extends Record<string, unknown>>(flat: R): R & Pick<UsageRow, 'above'> {
  const row: Record<string, unknown> = {};
  for (const k in flat) if (!ABOVE_COLUMNS.has(k)) row[k] = flat[k];
  const above = {} as UsageRow['above'];
  for (const t of LONG_CONTEXT_THRESHOLDS) {
    const b = {} as TokenTotals;
    for (const [key] of BUCKET_COLUMNS) b[key] = flat[aboveName(key, t)] as number;
    above[t] = b;
  }
  row.above = above;
  return row as R & Pick<UsageRow, 'above'>;
}

export { totalTokens } from '../../model/usage';
