import { escapeControls } from '../model/terminal';
import { formatDuration } from '../model/time';
import { totalTokens } from '../model/usage';
import type { Catalog, Overrides } from '../pricing/catalog';
import { estimateCost } from '../pricing/estimate';
import { matchModel } from '../pricing/match';
import type { UsageRow } from '../store/queries/usage';
import { plural, usd } from './format';
import { renderTable, shortId, wrapAtSpaces, type Column } from './table';
import { groupDigits } from '../model/digits';

/** `beacon token-usage`'s groups: the sums, the pricing and the table (the command parses and queries). */

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  reasoning_output_tokens: number;
}

export interface UsageGroup {
  key: string | null;
  model_calls: number;
  usage: Usage;
  /** input + output + cache read + cache write (reasoning is part of output) */
  total_tokens: number;
  /** --breakdown: the group's model calls per model */
  models?: UsageGroup[];
  /** --by model: how long its calls took, from those that carry a duration (null: none does) */
  latency_ms?: { timed_calls: number; p50: number; p95: number; max: number } | null;
  /** --by session: when and where it ran (ccusage's session report) */
  session?: { start: string; end: string; agent: string | null; repository: string | null; branch: string | null; models: string[] };
  /** --by block: ccusage's 5-hour block */
  block?: BlockFacts;
  reported_cost_usd: number | null;
  estimated_cost_usd: number | null;
  unpriced_model_calls: number;
  unpriced_models: string[];
}

export interface BlockFacts {
  start: string;
  end: string;
  first_call: string;
  last_call: string;
  /** the block still open: its five hours not over and its last call less than five hours ago */
  active: boolean;
  /** the active block's rate between its first and last call, and where it ends at that rate */
  burn_rate: { tokens_per_minute: number; estimated_cost_usd_per_hour: number | null } | null;
  projection: { total_tokens: number; estimated_cost_usd: number | null; remaining_minutes: number } | null;
}

const zero = (): Usage => ({ input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, reasoning_output_tokens: 0 });
export const emptyGroup = (key: string | null): UsageGroup => ({ key, model_calls: 0, usage: zero(), total_tokens: 0, reported_cost_usd: null, estimated_cost_usd: null, unpriced_model_calls: 0, unpriced_models: [] });

/** the unpriced models in one order whatever order the rows came in */
const addUnpriced = (g: UsageGroup, name: string) => {
  if (!g.unpriced_models.includes(name)) g.unpriced_models = [...g.unpriced_models, name].sort();
};

function add(g: UsageGroup, r: UsageRow, estimate: number | undefined, unpricedName: string): void {
  g.model_calls += r.calls;
  g.usage.input_tokens += r.input;
  g.usage.output_tokens += r.output;
  g.usage.cache_read_input_tokens += r.cacheRead;
  g.usage.cache_creation_input_tokens += r.cacheWrite;
  g.usage.reasoning_output_tokens += r.reasoning;
  g.total_tokens += totalTokens(r);
  if (r.reportedCost !== null) g.reported_cost_usd = (g.reported_cost_usd ?? 0) + r.reportedCost;
  if (estimate !== undefined) g.estimated_cost_usd = (g.estimated_cost_usd ?? 0) + estimate;
  else {
    g.unpriced_model_calls += r.calls;
    addUnpriced(g, unpricedName);
  }
}

export function merge(into: UsageGroup, g: UsageGroup): void {
  into.model_calls += g.model_calls;
  into.total_tokens += g.total_tokens;
  for (const k of Object.keys(into.usage) as (keyof Usage)[]) into.usage[k] += g.usage[k];
  if (g.reported_cost_usd !== null) into.reported_cost_usd = (into.reported_cost_usd ?? 0) + g.reported_cost_usd;
  if (g.estimated_cost_usd !== null) into.estimated_cost_usd = (into.estimated_cost_usd ?? 0) + g.estimated_cost_usd;
  into.unpriced_model_calls += g.unpriced_model_calls;
  for (const m of g.unpriced_models) addUnpriced(into, m);
}

export const modelKey = (r: Pick<UsageRow, 'model' | 'provider'>) => (r.model === null ? null : `${r.model}${r.provider ? ` (${r.provider})` : ''}`);

/**
 * The rows summed per group (`keyOf`), and with `breakdown` per model inside each group (ccusage's
 * daily report by model, issue 24 item 11), each priced from the catalog.
 */
export function groupRows(rows: readonly UsageRow[], keyOf: (r: UsageRow) => string | null, o: { catalog: Catalog; overrides?: Overrides; breakdown: boolean }) {
  const groups = new Map<string | null, UsageGroup>();
  const totals = emptyGroup('total');
  const perModel = new Map<UsageGroup, Map<string | null, UsageGroup>>();
  const matches = new Map<string, ReturnType<typeof matchModel>>(); // rows repeat a few (model, provider) pairs
  for (const r of rows) {
    const pair = JSON.stringify([r.model, r.provider]);
    let m = matches.get(pair);
    if (!m) matches.set(pair, (m = matchModel(r.model, r.provider, o.catalog, o.overrides)));
    const estimate = m.priced ? estimateCost(r, m.rates) : undefined;
    const name = r.model ?? '(no model)';
    const key = keyOf(r);
    if (!groups.has(key)) groups.set(key, emptyGroup(key));
    const g = groups.get(key)!;
    add(g, r, estimate, name);
    add(totals, r, estimate, name);
    if (o.breakdown) {
      if (!perModel.has(g)) perModel.set(g, new Map());
      const models = perModel.get(g)!;
      const mk = modelKey(r);
      if (!models.has(mk)) models.set(mk, emptyGroup(mk));
      add(models.get(mk)!, r, estimate, name);
    }
  }
  for (const [g, models] of perModel) g.models = [...models.values()].sort((a, b) => b.total_tokens - a.total_tokens);
  return { groups, totals };
}

const n = groupDigits;
type Line = { label: string; g: UsageGroup; sub?: boolean };

/** The table: wide with every bucket when it fits, else the key, input, output, total and cost (src/cli/table.ts). */
export function usageTable(groups: readonly UsageGroup[], totals: UsageGroup, by: string, width: number | undefined): string {
  const lines: Line[] = [...groups.flatMap((g) => [{ label: g.key ?? '(none)', g }, ...(g.models ?? []).map((m) => ({ label: `  └ ${m.key ?? '(no model)'}`, g: m, sub: true }))]), { label: 'TOTAL', g: totals }];
  const num = (header: string, f: (g: UsageGroup) => number, show: Column<Line>['show'], compactHeader?: string): Column<Line> => ({ header, compactHeader, align: 'right', show, cell: (l) => n(f(l.g)) });
  const ms = (k: 'p50' | 'p95') => (l: Line) => (l.g.latency_ms ? formatDuration(BigInt(l.g.latency_ms[k]) * 1_000_000n) : '-');
  const anyReported = lines.some((l) => l.g.reported_cost_usd !== null);
  const columns: Column<Line>[] = [
    { header: by.toUpperCase(), show: 'key', cell: (l) => l.label, compactCell: (l) => (by === 'session' && !l.sub && l.label !== 'TOTAL' ? shortId(l.label) : l.label) },
    ...sessionColumns(by),
    ...blockColumns(by),
    num('CALLS', (g) => g.model_calls, 'wide'),
    num('INPUT', (g) => g.usage.input_tokens, 'keep'),
    num('OUTPUT', (g) => g.usage.output_tokens, 'keep'),
    num('CACHE READ', (g) => g.usage.cache_read_input_tokens, 'wide'),
    num('CACHE WRITE', (g) => g.usage.cache_creation_input_tokens, 'wide'),
    num('TOTAL TOKENS', (g) => g.total_tokens, 'keep', 'TOTAL'),
    num('REASONING', (g) => g.usage.reasoning_output_tokens, 'wide'),
    ...(by === 'model' ? [{ header: 'P50', align: 'right', show: 'wide', cell: ms('p50') }, { header: 'P95', align: 'right', show: 'wide', cell: ms('p95') }] as Column<Line>[] : []),
    { header: 'REPORTED', align: 'right', show: anyReported ? 'keep' : 'wide', cell: (l) => usd(l.g.reported_cost_usd) },
    { header: 'EST. LIST', compactHeader: 'COST', align: 'right', show: 'keep', cell: (l) => `${usd(l.g.estimated_cost_usd)}${l.g.unpriced_model_calls > 0 ? '*' : ''}` },
  ];
  return renderTable(columns, lines, width).join('\n');
}

/** --by session: ccusage's session report columns (its date, agent, models, repository). */
function sessionColumns(by: string): Column<Line>[] {
  if (by !== 'session') return [];
  const s = (l: Line) => l.g.session;
  return [
    { header: 'LAST ACTIVITY', compactHeader: 'DATE', show: 'keep', cell: (l) => s(l)?.end ?? '', compactCell: (l) => (s(l)?.end ?? '').slice(0, 10) },
    { header: 'AGENT', show: 'wide', cell: (l) => s(l)?.agent ?? (s(l) ? '-' : '') },
    { header: 'MODELS', show: 'wide', cell: (l) => s(l)?.models.join(', ') ?? '' },
    { header: 'REPOSITORY', show: 'wide', cell: (l) => (s(l) ? `${s(l)!.repository ?? '-'}${s(l)!.branch ? ` (${s(l)!.branch})` : ''}` : '') },
  ];
}

/** --by block: when the block ends and whether it is the active one. */
function blockColumns(by: string): Column<Line>[] {
  if (by !== 'block') return [];
  const b = (l: Line) => l.g.block;
  return [
    { header: 'END', show: 'wide', cell: (l) => b(l)?.end ?? '' },
    { header: 'STATUS', show: 'keep', cell: (l) => (b(l) ? (b(l)!.active ? 'ACTIVE' : 'done') : '') },
  ];
}

/**
 * The lines after the table, once: what the two costs are, what is unpriced (the `*` of the table),
 * and the notes of the report's kind. Each wrapped to the terminal's width at a space.
 */
export function usageFooter(o: { totals: UsageGroup; catalogText: string; overridesHint: string; extra: string[] }, width: number | undefined): string[] {
  const lines = [
    `costs: REPORTED = what an agent itself reported (Claude Code's cost_usd; the other agents report none); EST. LIST (COST) = list-price estimate from ${o.catalogText}, standard tier, cache writes at the 5-minute rate. Estimates are never written into events.`,
    ...(o.totals.unpriced_model_calls > 0 ? [`* unpriced: ${plural(o.totals.unpriced_model_calls, 'model call')} of ${escapeControls(o.totals.unpriced_models.join(', '))} (not in the catalog, or ambiguous there) — not guessed; add them to ${o.overridesHint}`] : []),
    ...o.extra,
  ];
  return lines.flatMap((l) => wrapAtSpaces(l, width));
}
