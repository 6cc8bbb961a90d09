import type { Catalog, Overrides, Rates } from './catalog';

const RATE_KEYS = ['input', 'output', 'cache_read', 'cache_write_5m', 'cache_write_1h'] as const;

/** The decimal places of a number as written (`0.546875` → 6, `1.25e-7` → 9). */
function decimalsOf(v: number): number {
  const [mantissa, exponent] = String(v).split('e');
  const fraction = mantissa!.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}

/**
 * How many decimal places of a dollar a list-price estimate is exact to: the catalog's rates are
 * USD per million tokens with at most N decimals, so a whole number of tokens costs a multiple of
 * 10^-(N+6) dollars, and any digit past that is floating-point noise from summing (0.019665000000000003).
 * Reports round their JSON costs to it (today's catalog: N = 6, 12 decimals).
 */
export function costDecimals(catalog: Catalog, overrides?: Overrides): number {
  let max = 0;
  const models = [...Object.values(catalog.models), ...Object.values(overrides?.models ?? {})];
  for (const m of models) {
    for (const r of [m, ...(m.tiers ?? [])] as Rates[]) {
      for (const k of RATE_KEYS) if (typeof r[k] === 'number') max = Math.max(max, decimalsOf(r[k]!));
    }
  }
  return Math.min(15, max + 6); // a double holds ~15 significant digits
}

/** `v` rounded to `decimals` places (through its decimal text, so 0.1 + 0.2 gives 0.3, not 0.30000000000000004). */
export const roundCost = (v: number, decimals: number) => Number(v.toFixed(decimals));

/** A JSON.stringify replacer that rounds every `…cost_usd` number of a report. */
export const costRounder = (decimals: number) => (key: string, value: unknown) => (typeof value === 'number' && key.endsWith('cost_usd') ? roundCost(value, decimals) : value);
