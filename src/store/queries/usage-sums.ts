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

/** A result row of `USAGE_SUMS_SQL` (with its group columns) with the long-context columns folded into `above`. */
export function usageRowOf<R extends Record<string, unknown>>(flat: R): R & Pick<UsageRow, 'above'> {
  const row = { ...flat, above: {} as UsageRow['above'] };
  for (const t of LONG_CONTEXT_THRESHOLDS) {
    const b = {} as TokenTotals;
    for (const [key] of BUCKET_COLUMNS) {
      b[key] = flat[aboveName(key, t)] as number;
      delete (row as Record<string, unknown>)[aboveName(key, t)];
    }
    row.above[t] = b;
  }
  return row;
}

export { totalTokens } from '../../model/usage';
