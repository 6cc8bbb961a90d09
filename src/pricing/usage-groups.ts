import type { TokenTotals } from '../model/usage';
import type { UsageRow } from '../store/queries/usage';
import type { Catalog, Overrides } from './catalog';
import { estimateCost } from './estimate';
import { matchModel } from './match';

/** Token sums of model calls with the reported cost and the list-price estimate kept apart. */
export interface PricedGroup extends TokenTotals {
  key: string;
  calls: number;
  reasoning: number;
  /** what a runtime itself reported; null when none did */
  reportedCost: number | null;
  /** the list-price estimate of the priced calls; null when none was priced */
  estimatedCost: number | null;
  unpricedCalls: number;
  unpricedModels: string[];
}

export const emptyPricedGroup = (key: string): PricedGroup => ({
  key, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, reportedCost: null, estimatedCost: null, unpricedCalls: 0, unpricedModels: [],
});

/** Prices usage rows (one per group, model, provider) and folds them into groups by `keyOf`; insertion order is first appearance. */
export class UsagePricer {
  private readonly cache = new Map<string, ReturnType<typeof matchModel>>();
  constructor(readonly catalog: Catalog, readonly overrides?: Overrides) {}

  estimate(r: UsageRow): number | undefined {
    const k = `${r.model}\u0000${r.provider}`;
    let m = this.cache.get(k);
    if (!m) this.cache.set(k, (m = matchModel(r.model, r.provider, this.catalog, this.overrides)));
    if (!m.priced) return undefined;
    return estimateCost(r, m.rates);
  }

  add(g: PricedGroup, r: UsageRow): void {
    g.calls += r.calls;
    g.input += r.input;
    g.output += r.output;
    g.cacheRead += r.cacheRead;
    g.cacheWrite += r.cacheWrite;
    g.reasoning += r.reasoning;
    if (r.reportedCost !== null) g.reportedCost = (g.reportedCost ?? 0) + r.reportedCost;
    const e = this.estimate(r);
    if (e !== undefined) g.estimatedCost = (g.estimatedCost ?? 0) + e;
    else {
      g.unpricedCalls += r.calls;
      const name = r.model ?? '(no model)';
      if (!g.unpricedModels.includes(name)) g.unpricedModels.push(name);
    }
  }

  group(rows: readonly UsageRow[], keyOf: (r: UsageRow) => string): Map<string, PricedGroup> {
    const out = new Map<string, PricedGroup>();
    for (const r of rows) {
      const k = keyOf(r);
      let g = out.get(k);
      if (!g) out.set(k, (g = emptyPricedGroup(k)));
      this.add(g, r);
    }
    return out;
  }

  total(rows: readonly UsageRow[], key = 'total'): PricedGroup {
    const g = emptyPricedGroup(key);
    for (const r of rows) this.add(g, r);
    return g;
  }
}
