import { LONG_CONTEXT_THRESHOLDS } from '../../model/usage';
import type { TokenBuckets, UsageRow } from './usage';

/**
 * The one usage aggregator of the store: the SQL sums of model calls (what `queryUsage` reads from
 * the usage index and `UsageRollup` from new rows) and the same sums added in memory. Every model
 * call is one `model.invoked` event with disjoint buckets, so each sum counts a token once.
 */

/** The token buckets and the columns they are summed from. */
const BUCKET_COLUMNS = [['input', 'input_tokens'], ['output', 'output_tokens'], ['cacheRead', 'cache_read_tokens'], ['cacheWrite', 'cache_creation_tokens']] as const;
/** A call's prompt: its input with both cache buckets (what the long-context thresholds are about). */
const PROMPT = '(coalesce(input_tokens, 0) + coalesce(cache_read_tokens, 0) + coalesce(cache_creation_tokens, 0))';
const above = (t: number, col: string) => `coalesce(sum(CASE WHEN ${PROMPT} > ${t} THEN ${col} END), 0)`;
const aboveName = (key: string, t: number) => `${key}_${t}`;

/** The aggregate columns of a usage row, for a `SELECT … GROUP BY`; `usageRowOf` folds a result row into a `UsageRow`. */
export const USAGE_SUMS_SQL = `count(*) AS calls,
  coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output,
  coalesce(sum(cache_read_tokens), 0) AS cacheRead, coalesce(sum(cache_creation_tokens), 0) AS cacheWrite,
  coalesce(sum(reasoning_tokens), 0) AS reasoning, sum(cost_usd) AS reportedCost, count(cost_usd) AS reportedCalls,
  ${LONG_CONTEXT_THRESHOLDS.map((t) => BUCKET_COLUMNS.map(([key, col]) => `${above(t, col)} AS ${aboveName(key, t)}`).join(', ')).join(',\n  ')}`;

/** A result row of `USAGE_SUMS_SQL` (with its group columns) with the long-context columns folded into `above`. */
export function usageRowOf<R extends Record<string, unknown>>(flat: R): R & Pick<UsageRow, 'above'> {
  const row = { ...flat, above: {} as UsageRow['above'] };
  for (const t of LONG_CONTEXT_THRESHOLDS) {
    const b = {} as TokenBuckets;
    for (const [key] of BUCKET_COLUMNS) {
      b[key] = flat[aboveName(key, t)] as number;
      delete (row as Record<string, unknown>)[aboveName(key, t)];
    }
    row.above[t] = b;
  }
  return row;
}

const COUNTS = ['calls', 'input', 'output', 'cacheRead', 'cacheWrite', 'reasoning', 'reportedCalls'] as const;

/** Adds `from` into `to`: every sum, the reported cost, and each long-context part. */
export function addUsage(to: UsageRow, from: UsageRow): void {
  for (const k of COUNTS) to[k] += from[k];
  if (from.reportedCost !== null) to.reportedCost = (to.reportedCost ?? 0) + from.reportedCost;
  for (const t of LONG_CONTEXT_THRESHOLDS) for (const [key] of BUCKET_COLUMNS) to.above[t]![key] += from.above[t]![key];
}

/** A copy of the long-context parts (a group must not share them with the cell it started from). */
export function copyAbove(a: UsageRow['above']): UsageRow['above'] {
  return Object.fromEntries(LONG_CONTEXT_THRESHOLDS.map((t) => [t, { ...a[t]! }]));
}

/** All tokens of the buckets (reasoning is inside output, never added to it). */
export function totalTokens(b: TokenBuckets): number {
  return b.input + b.output + b.cacheRead + b.cacheWrite;
}
