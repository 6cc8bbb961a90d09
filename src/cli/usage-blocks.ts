import { formatDisplayTime, formatDuration } from '../model/time';
import { BLOCK_NS, type UsageBlock } from '../store/queries/usage-blocks';
import { usd } from './format';
import type { BlockFacts, UsageGroup } from './usage-report';
import { groupDigits } from '../model/digits';

/** `token-usage --by block`: ccusage's 5-hour blocks (`ccusage blocks`), their labels, the active block's burn rate and projection. */

const MINUTE_NS = 60_000_000_000;

/** A block's key: its start to the minute, in the reader's zone (--utc: UTC), so keys sort in time order. */
export const blockLabel = (startNs: bigint, utc: boolean) => formatDisplayTime(startNs, utc).slice(0, 16);

/**
 * Each block's times beside its sums; the active block (its five hours not over, a call in the last
 * five hours) with ccusage's burn rate (its tokens and cost over the minutes from its first call to
 * its last) and projection (that rate kept up to the block's end).
 */
export function addBlocks(groups: Map<string | null, UsageGroup>, blocks: readonly UsageBlock[], nowNs: bigint, utc: boolean): void {
  for (const b of blocks) {
    const g = groups.get(blockLabel(b.startNs, utc));
    if (!g) continue;
    const active = nowNs < b.endNs && nowNs - b.lastNs < BLOCK_NS;
    const minutes = Number(b.lastNs - b.firstNs) / MINUTE_NS;
    const rate = active && minutes > 0 ? { tokens_per_minute: g.total_tokens / minutes, estimated_cost_usd_per_hour: g.estimated_cost_usd === null ? null : (g.estimated_cost_usd / minutes) * 60 } : null;
    const remaining = Number(b.endNs - nowNs) / MINUTE_NS;
    const facts: BlockFacts = {
      start: formatDisplayTime(b.startNs, utc),
      end: formatDisplayTime(b.endNs, utc),
      first_call: formatDisplayTime(b.firstNs, utc),
      last_call: formatDisplayTime(b.lastNs, utc),
      active,
      burn_rate: rate === null ? null : { tokens_per_minute: Math.round(rate.tokens_per_minute), estimated_cost_usd_per_hour: rate.estimated_cost_usd_per_hour },
      projection: rate === null ? null : {
        total_tokens: Math.round(g.total_tokens + rate.tokens_per_minute * remaining),
        estimated_cost_usd: g.estimated_cost_usd === null || rate.estimated_cost_usd_per_hour === null ? null : g.estimated_cost_usd + (rate.estimated_cost_usd_per_hour / 60) * remaining,
        remaining_minutes: Math.round(remaining),
      },
    };
    g.block = facts;
  }
}

const n = groupDigits;

/** The active block's line under the table: how fast it burns and where it ends at that rate. */
export function activeBlockLines(groups: readonly UsageGroup[]): string[] {
  const g = groups.find((x) => x.block?.active);
  if (!g?.block) return [];
  const b = g.block;
  const left = formatDuration(BigInt(Math.max(0, b.projection?.remaining_minutes ?? 0)) * 60_000_000_000n);
  if (!b.burn_rate || !b.projection) return [`active block ${b.start.slice(0, 16)} to ${b.end.slice(11, 16)} (${left} left): one call so far, no burn rate yet`];
  const cost = (v: number | null, unit = '') => (v === null ? '' : `, ${usd(v)}${unit}`);
  return [
    `active block ${b.start.slice(0, 16)} to ${b.end.slice(11, 16)} (${left} left): burn rate ${n(b.burn_rate.tokens_per_minute)} tokens/min${cost(b.burn_rate.estimated_cost_usd_per_hour, '/h')}; projected by its end ${n(b.projection.total_tokens)} tokens${cost(b.projection.estimated_cost_usd)}`,
  ];
}
