/* eslint-disable @typescript-eslint/no-explicit-any */
import { LONG_CONTEXT_THRESHOLDS, type TokenTotals } from '../model/usage';
import type { UsagePricer } from '../pricing/usage-groups';
import type { TimelineItem } from '../store/queries/tool-calls';
import type { UsageRow } from '../store/queries/usage';
import { loadD3 } from './chart';
import { elapsedAxis } from './elapsed-axis';
import { fmtDuration, fmtUsd } from './format';
import { html, type Html } from './html';

/** One model call of a session: when (ms from the session's start), how long it took, what it cost. */
export interface CallPoint {
  atMs: number;
  latencyMs?: number;
  /** the cost the agent reported, else the list-price estimate; undefined when neither exists */
  costUsd?: number;
  reported: boolean;
  model: string;
}

/** The session's model calls as points: the record's own tokens priced as `beacon token-usage` prices a group of one call. */
export function callPoints(items: readonly TimelineItem[], originNs: bigint, pricer: UsagePricer): CallPoint[] {
  const out: CallPoint[] = [];
  for (const it of items) {
    if (it.kind !== 'event' || it.event.action !== 'model.invoked') continue;
    const r = it.record;
    const u = r.gen_ai?.usage ?? {};
    const latency = r.gen_ai?.duration_ms;
    const reported = typeof u.cost_usd === 'number' && Number.isFinite(u.cost_usd);
    const costUsd = reported ? (u.cost_usd as number) : pricer.estimate(usageRowOf(r));
    out.push({
      atMs: Number(it.event.tsNs - originNs) / 1e6,
      ...(typeof latency === 'number' && Number.isFinite(latency) && latency >= 0 ? { latencyMs: latency } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
      reported,
      model: String(r.model ?? '?'),
    });
  }
  return out;
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

function usageRowOf(r: Record<string, any>): UsageRow {
  const u = r.gen_ai?.usage ?? {};
  const t: TokenTotals = { input: count(u.input_tokens), output: count(u.output_tokens), cacheRead: count(u.cache_read?.input_tokens), cacheWrite: count(u.cache_creation?.input_tokens) };
  const context = t.input + t.cacheRead + t.cacheWrite;
  // one call is all above a long-context threshold or all below it (usage_cells' rule, per call)
  const above = Object.fromEntries(LONG_CONTEXT_THRESHOLDS.filter((n) => context > n).map((n) => [n, { ...t }]));
  return { grp: null, model: r.model ?? null, provider: r.gen_ai?.provider?.name ?? null, calls: 1, reasoning: 0, reportedCost: null, reportedCalls: 0, ...t, above };
}

const H = 150;
const [TOP, BOTTOM, LEFT, RIGHT] = [22, 24, 64, 24];

/**
 * Latency per model call (a dot each) and the session's running cost (a step line), on the
 * waterfall's time axis from the session's start: one SVG each, a unit on every y axis.
 */
export async function renderCallTrends(points: readonly CallPoint[], opts: { width?: number; endMs?: number } = {}): Promise<Html> {
  if (points.length === 0) return html``;
  const W = opts.width ?? 1100;
  const { scale } = await loadD3();
  const end = Math.max(1, opts.endMs ?? 0, ...points.map((p) => p.atMs + (p.latencyMs ?? 0)));
  const axis = elapsedAxis(scale, end, LEFT, W - RIGHT);
  const xAxis = html`<line class="axis" x1="${LEFT}" x2="${W - RIGHT}" y1="${H - BOTTOM}" y2="${H - BOTTOM}"></line>
${axis.ticks.map((t) => html`<line class="tick" x1="${t.x.toFixed(1)}" x2="${t.x.toFixed(1)}" y1="${H - BOTTOM}" y2="${H - BOTTOM + 4}"></line><text class="x" x="${t.x.toFixed(1)}" y="${H - 8}" text-anchor="${t.anchor}">${t.label}</text>`)}
<text class="unit" x="${W - RIGHT}" y="${H - BOTTOM - 4}" text-anchor="end">from start (${axis.unit})</text>`;

  const timed = points.filter((p) => p.latencyMs !== undefined);
  const lat = scale.scaleLinear().domain([0, Math.max(1, ...timed.map((p) => p.latencyMs!))]).nice().range([H - BOTTOM, TOP]);
  const latTicks = lat.ticks(4);
  const latFormat = lat.tickFormat(4, ',f');
  const latency = html`<svg class="chart trend" id="latency-chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="latency per model call, ms">
<text class="unit" x="${LEFT - 6}" y="12" text-anchor="end">ms</text>
${latTicks.map((t) => html`<line x1="${LEFT}" x2="${W - RIGHT}" y1="${lat(t).toFixed(1)}" y2="${lat(t).toFixed(1)}"></line><text class="y" x="${LEFT - 6}" y="${(lat(t) + 4).toFixed(1)}" text-anchor="end">${latFormat(t)}</text>`)}
${xAxis}
${timed.map((p) => html`<circle class="latency" cx="${axis.x(p.atMs).toFixed(1)}" cy="${lat(p.latencyMs!).toFixed(1)}" r="4" data-ms="${Math.round(p.latencyMs!)}"><title>${`model ${p.model}: ${fmtDuration(BigInt(Math.round(p.latencyMs!)) * 1_000_000n)}`}</title></circle>`)}
</svg>`;

  const priced = points.filter((p) => p.costUsd !== undefined);
  let running = 0;
  const steps = priced.map((p) => ({ p, total: (running += p.costUsd!) }));
  const cost = scale.scaleLinear().domain([0, running > 0 ? running : 1]).nice().range([H - BOTTOM, TOP]);
  const costTicks = cost.ticks(4);
  const costFormat = cost.tickFormat(4, '$,f');
  let path = `M${LEFT},${cost(0).toFixed(1)}`;
  for (const s of steps) path += ` H${axis.x(s.p.atMs).toFixed(1)} V${cost(s.total).toFixed(1)}`;
  if (steps.length) path += ` H${axis.x(end).toFixed(1)}`;
  const costChart = html`<svg class="chart trend" id="cost-chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="running cost of the session, USD">
<text class="unit" x="${LEFT - 6}" y="12" text-anchor="end">USD</text>
${costTicks.map((t) => html`<line x1="${LEFT}" x2="${W - RIGHT}" y1="${cost(t).toFixed(1)}" y2="${cost(t).toFixed(1)}"></line><text class="y" x="${LEFT - 6}" y="${(cost(t) + 4).toFixed(1)}" text-anchor="end">${costFormat(t)}</text>`)}
${xAxis}
${steps.length ? html`<path class="cost" d="${path}"></path>` : html`<text class="empty" x="${(W / 2).toFixed(0)}" y="${(H / 2).toFixed(0)}" text-anchor="middle">no priced model call</text>`}
${steps.map((s) => html`<circle class="cost" cx="${axis.x(s.p.atMs).toFixed(1)}" cy="${cost(s.total).toFixed(1)}" r="3" data-usd="${s.total}"><title>${`model ${s.p.model}: ${fmtUsd(s.p.costUsd)} (${s.p.reported ? 'reported by the agent' : 'list-price estimate'}), ${fmtUsd(s.total)} so far`}</title></circle>`)}
</svg>`;
  return html`<div class="grid2"><div><h3>Latency per model call</h3>${latency}</div><div><h3>Cost over time</h3>${costChart}</div></div>`;
}
