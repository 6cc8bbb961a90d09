import { LONG_CONTEXT_THRESHOLDS, type TieredTokenTotals, type TokenTotals } from '../model/usage';
import type { PricedModel, Rates } from './catalog';


/**
 * The list-price estimate of a group, USD. Cache reads and writes without a published rate are
 * priced at the input rate; cache writes at the 5-minute rate (goose does not say which TTL it used).
 * Reasoning tokens are inside output and priced with it. Undefined when input or output has no rate.
 */
export function estimateCost(sums: TieredTokenTotals, m: PricedModel): number | undefined {
  if (m.input === undefined || m.output === undefined) return undefined;
  const tier = m.tiers?.filter((t) => (LONG_CONTEXT_THRESHOLDS as readonly number[]).includes(t.above_tokens)).sort((a, b) => a.above_tokens - b.above_tokens)[0];
  const cost = (n: TokenTotals, r: Rates, base: Rates) => {
    const input = r.input ?? base.input!;
    const output = r.output ?? base.output!;
    return (n.input * input + n.output * output + n.cacheRead * (r.cache_read ?? base.cache_read ?? input) + n.cacheWrite * (r.cache_write_5m ?? base.cache_write_5m ?? input)) / 1e6;
  };
  if (!tier) return cost(sums, m, m);
  const high = sums.above[tier.above_tokens] ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const low = { input: sums.input - high.input, output: sums.output - high.output, cacheRead: sums.cacheRead - high.cacheRead, cacheWrite: sums.cacheWrite - high.cacheWrite };
  return cost(low, m, m) + cost(high, tier, m);
}
