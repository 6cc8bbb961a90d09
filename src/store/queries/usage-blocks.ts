import type Database from 'better-sqlite3';
import { QUARTER_HOUR_NS, modelCallWhere, queryUsage, type UsageFilter, type UsageRow } from './usage';

/** ccusage's billing window: a block lasts five hours from the hour of its first call. */
export const BLOCK_NS = 5n * 3_600_000_000_000n;
const HOUR_NS = 3_600_000_000_000n;

export interface UsageBlock {
  /** the UTC hour of the block's first call (ccusage floors to the hour in UTC) */
  startNs: bigint;
  /** start + 5 hours */
  endNs: bigint;
  /** the block's first and last model call */
  firstNs: bigint;
  lastNs: bigint;
  /** its usage rows (one per quarter hour, model and provider), to price and sum */
  rows: UsageRow[];
}

/**
 * Model calls in ccusage's 5-hour blocks (`ccusage blocks`): a block starts at the hour of a call
 * and takes every later call until five hours have passed since that hour; the next call starts
 * the next block. (ccusage's second rule, five hours without a call, never decides on its own: a
 * call five hours after the last one is five hours after the block's hour too.) Gaps are not
 * listed (ccusage's gap rows carry no usage). The sums come from the quarter-hour rollup (queryUsage
 * by quarter hour): a block's edges are whole hours, so each quarter hour falls in one block, and
 * the blocks are exactly ccusage's. Each block's first and last call are one index seek each.
 */
export function queryUsageBlocks(db: Database.Database, filter: UsageFilter): UsageBlock[] {
  const seek = callSeeker(db, filter);
  const rows = queryUsage(db, filter, 'hour');
  const buckets = [...new Set(rows.map((r) => BigInt(r.grp as number)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const blockOf = new Map<bigint, UsageBlock>();
  const blocks: UsageBlock[] = [];
  let current: UsageBlock | undefined;
  for (const b of buckets) {
    const at = b * QUARTER_HOUR_NS;
    if (!current || at >= current.endNs) {
      const startNs = (at / HOUR_NS) * HOUR_NS;
      current = { startNs, endNs: startNs + BLOCK_NS, firstNs: at, lastNs: at, rows: [] };
      blocks.push(current);
    }
    blockOf.set(b, current);
  }
  for (const r of rows) blockOf.get(BigInt(r.grp as number))!.rows.push(r);
  return blocks.map(({ startNs, endNs, rows: rs }) => {
    const lo = (rs[0]!.grp as number);
    const hi = (rs[rs.length - 1]!.grp as number) + 1;
    const range = [BigInt(lo) * QUARTER_HOUR_NS, BigInt(hi) * QUARTER_HOUR_NS] as const;
    // a block of run reports alone (no model.invoked) has no call to seek: its quarter hours stand in
    return { startNs, endNs, firstNs: seek(range[0], range[1], 'ASC') ?? range[0], lastNs: seek(range[0], range[1], 'DESC') ?? range[1], rows: rs };
  });
}

/** The first (ASC) or last (DESC) model call the filter selects in [lo, hi): one seek of the usage index. */
function callSeeker(db: Database.Database, filter: UsageFilter) {
  const statements = new Map<string, Database.Statement>();
  return (lo: bigint, hi: bigint, dir: 'ASC' | 'DESC'): bigint | undefined => {
    const sinceNs = filter.sinceNs !== undefined && filter.sinceNs > lo ? filter.sinceNs : lo;
    const untilNs = filter.untilNs !== undefined && filter.untilNs < hi ? filter.untilNs : hi;
    const { where, params } = modelCallWhere({ ...filter, sinceNs, untilNs });
    const sql = `SELECT ts_ns FROM events WHERE ${where.join(' AND ')} ORDER BY ts_ns ${dir} LIMIT 1`;
    let st = statements.get(sql);
    if (!st) statements.set(sql, (st = db.prepare(sql).pluck().safeIntegers(true)));
    return st.get(...params) as bigint | undefined;
  };
}
