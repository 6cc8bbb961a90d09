import type Database from 'better-sqlite3';
import { LONG_CONTEXT_THRESHOLDS } from '../../src/model/usage';
import type { UsageFilter, UsageGrouping, UsageRow } from '../../src/store/queries/usage';

const QUARTER_HOUR_NS = 900_000_000_000n;

interface Call {
  tsNs: bigint;
  session: string | null;
  harness: string;
  model: string | null;
  provider: string | null;
  input: bigint | null;
  output: bigint | null;
  cacheRead: bigint | null;
  cacheWrite: bigint | null;
  reasoning: bigint | null;
  cost: number | null;
}

/**
 * The exact aggregate the rollup must equal, folded here from every model call's own row: none of
 * the production SQL (no index, no cells, no `USAGE_SUMS_SQL`), the filter and the sums written out
 * as the docs define them. Rows sorted, costs rounded to 1e-9 (float sums in another order differ in
 * their last bits), for deepEqual.
 */
export function rawUsage(db: Database.Database, filter: UsageFilter, by: UsageGrouping): UsageRow[] {
  const calls = db
    .prepare(`SELECT ts_ns AS tsNs, session_id AS session, harness, model, provider, input_tokens AS input, output_tokens AS output,
       cache_read_tokens AS cacheRead, cache_creation_tokens AS cacheWrite, reasoning_tokens AS reasoning, cost_usd AS cost
       FROM events NOT INDEXED WHERE action = 'model.invoked'`)
    .safeIntegers(true)
    .all() as Call[];
  const groups = new Map<string, UsageRow>();
  for (const c of calls) {
    if (filter.sinceNs !== undefined && c.tsNs < filter.sinceNs) continue;
    if (filter.untilNs !== undefined && c.tsNs >= filter.untilNs) continue;
    if (filter.sessionId !== undefined && c.session !== filter.sessionId) continue;
    if (filter.harness !== undefined && c.harness !== filter.harness) continue;
    // a model filter (a name or its prefix) never matches a call that names no model
    if (filter.model !== undefined && (c.model === null || !c.model.startsWith(filter.model))) continue;
    const grp = by === 'session' ? c.session : by === 'model' ? c.model : by === 'provider' ? c.provider : by === 'harness' ? c.harness : Number(c.tsNs / QUARTER_HOUR_NS);
    const key = JSON.stringify([grp, c.model, c.provider]);
    let g = groups.get(key);
    if (!g) {
      const above = Object.fromEntries(LONG_CONTEXT_THRESHOLDS.map((t) => [t, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }]));
      groups.set(key, (g = { grp, model: c.model, provider: c.provider, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, reportedCost: null, reportedCalls: 0, above }));
    }
    const n = (v: bigint | null) => Number(v ?? 0n);
    const buckets = { input: n(c.input), output: n(c.output), cacheRead: n(c.cacheRead), cacheWrite: n(c.cacheWrite) };
    g.calls++;
    g.input += buckets.input;
    g.output += buckets.output;
    g.cacheRead += buckets.cacheRead;
    g.cacheWrite += buckets.cacheWrite;
    g.reasoning += n(c.reasoning);
    if (c.cost !== null) (g.reportedCost = (g.reportedCost ?? 0) + Number(c.cost), g.reportedCalls++);
    // a call's prompt (input with both cache buckets) over a long-context threshold counts there too
    const prompt = buckets.input + buckets.cacheRead + buckets.cacheWrite;
    for (const t of LONG_CONTEXT_THRESHOLDS) {
      if (prompt <= t) continue;
      const a = g.above[t]!;
      a.input += buckets.input;
      a.output += buckets.output;
      a.cacheRead += buckets.cacheRead;
      a.cacheWrite += buckets.cacheWrite;
    }
  }
  return comparable([...groups.values()]);
}

export function comparable(rows: UsageRow[]): UsageRow[] {
  return rows
    .map((r) => ({ ...r, reportedCost: r.reportedCost === null ? null : Math.round(r.reportedCost * 1e9) / 1e9 }))
    .sort((a, b) => JSON.stringify([a.grp, a.model, a.provider]).localeCompare(JSON.stringify([b.grp, b.model, b.provider])));
}
