import { html, type Html } from './html';
import { fmtTokens } from './format';

/** One usage row: when (its start) and its tokens — input, output, cache read, cache write. */
export interface UsagePoint {
  start: Date;
  values: [number, number, number, number];
}

export type ChartInterval = 'hour' | 'day' | 'week';

const SERIES = [
  ['in', 'input'],
  ['out', 'output'],
  ['cr', 'cache read'],
  ['cw', 'cache write'],
] as const;

/** The most slots a chart draws: a window longer than this starts at its first data. */
const MAX_SLOTS = 400;
/** px per x label with its gap (11 px text: `12-02 14:00` is ~62 px, `2026-12-02` ~58 px in Chromium) */
const TICK_PX: Record<ChartInterval, number> = { hour: 84, day: 80, week: 80 };

type D3 = { scale: typeof import('d3-scale'); time: typeof import('d3-time') };
let d3: Promise<D3> | undefined;
/**
 * d3-scale and d3-time (issue 24 item 6: round ticks, a time axis with the empty buckets) are ES
 * modules; this CommonJS build loads them once with import(), which every supported Node has.
 */
export const loadD3 = (): Promise<D3> => (d3 ??= Promise.all([import('d3-scale'), import('d3-time')]).then(([scale, time]) => ({ scale, time })));

/**
 * A stacked bar chart drawn as SVG on the server (no script, no canvas; a <title> per bar): one slot
 * per hour, day or ISO week (from Monday) of the window `from`–`to`, empty slots included, on a UTC
 * time axis; the token axis has round ticks (d3's nice domain), integers only, in the units the
 * tables use.
 */
export async function stackedBars(points: UsagePoint[], opts: { interval: ChartInterval; from?: Date; to: Date; width?: number; height?: number }): Promise<Html> {
  const { scale, time } = await loadD3();
  const interval = { hour: time.utcHour, day: time.utcDay, week: time.utcMonday }[opts.interval];
  const sums = new Map<number, [number, number, number, number]>();
  for (const p of points) {
    const k = interval.floor(p.start).getTime();
    const s = sums.get(k) ?? [0, 0, 0, 0];
    p.values.forEach((v, i) => (s[i] += v));
    sums.set(k, s);
  }
  const first = [...sums.keys()].sort((a, b) => a - b)[0];
  let from = interval.floor(opts.from ?? (first !== undefined ? new Date(first) : opts.to));
  let slots = interval.range(from, interval.offset(interval.floor(opts.to), 1));
  if (slots.length > MAX_SLOTS && first !== undefined) {
    from = new Date(first);
    slots = interval.range(from, interval.offset(interval.floor(opts.to), 1));
  }
  if (slots.length > MAX_SLOTS) slots = slots.slice(-MAX_SLOTS);
  if (slots.length === 0) slots = [from];

  const W = opts.width ?? 1100;
  const H = opts.height ?? 260;
  const [left, right, top, bottom] = [64, 24, 22, 30];
  const x = scale.scaleUtc().domain([slots[0]!, interval.offset(slots[slots.length - 1]!, 1)]).range([left, W - right]);
  const totals = slots.map((s) => (sums.get(s.getTime()) ?? [0, 0, 0, 0]).reduce((a, v) => a + v, 0));
  const max = Math.max(0, ...totals);
  const y = scale.scaleLinear().domain([0, max || 1]).nice().range([H - bottom, top]);
  const yTicks = max === 0 ? [0] : y.ticks(5).filter(Number.isInteger);
  // One format per interval; a tick per bucket (at its bar), every k-th counted back from the newest
  // bucket, so no tick is past now, a weekly tick is the bucket's Monday, and labels stay TICK_PX apart.
  const tickText = (d: Date) => (opts.interval === 'hour' ? d.toISOString().slice(5, 16).replace('T', ' ') : d.toISOString().slice(0, 10));
  const every = Math.max(1, Math.ceil(slots.length / Math.max(1, Math.floor((W - left - right) / TICK_PX[opts.interval]))));
  const xTicks = slots.filter((_, i) => (slots.length - 1 - i) % every === 0);
  const center = (d: Date) => (x(d) + x(interval.offset(d, 1))) / 2;
  const label = (d: Date) => (opts.interval === 'hour' ? `${d.toISOString().slice(0, 13).replace('T', ' ')}:00 UTC` : opts.interval === 'day' ? d.toISOString().slice(0, 10) : `week from ${d.toISOString().slice(0, 10)}`);

  const bars = slots.map((s, i) => {
    const v = sums.get(s.getTime());
    if (!v || totals[i] === 0) return '';
    const x0 = x(s);
    const slotW = x(interval.offset(s, 1)) - x0;
    const w = Math.max(1, Math.min(60, slotW * 0.8));
    const bx = x0 + (slotW - w) / 2;
    let acc = 0;
    const segs = v.map((n, k) => {
      if (n <= 0) return '';
      const y1 = y(acc);
      acc += n;
      const y2 = y(acc);
      return html`<rect class="${SERIES[k]![0]}" x="${bx.toFixed(1)}" y="${y2.toFixed(1)}" width="${w.toFixed(1)}" height="${(y1 - y2).toFixed(1)}"></rect>`;
    });
    const tip = `${label(s)}: ${fmtTokens(totals[i]!)} tokens — ${SERIES.map(([, name], k) => `${name} ${fmtTokens(v[k]!)}`).join(', ')}`;
    return html`<g data-bucket="${s.toISOString()}"><title>${tip}</title>${segs}</g>`;
  });
  // a label near an edge is anchored inside the chart, never clipped
  const anchor = (px: number) => (px > W - right - 40 ? 'end' : px < left + 40 ? 'start' : 'middle');
  return html`<div class="legend">${SERIES.map(([c, n]) => html`<span><i class="${c}"></i>${n}</span>`)}</div>
<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="tokens per ${opts.interval}, stacked by kind" data-slots="${slots.length}">
<text class="unit" x="${left - 6}" y="${top - 2}" text-anchor="end">tokens</text>
${yTicks.map((t) => html`<line x1="${left}" x2="${W - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}"></line><text class="y" x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${fmtTokens(t)}</text>`)}
<line class="axis" x1="${left}" x2="${W - right}" y1="${H - bottom}" y2="${H - bottom}"></line>
${xTicks.map((t) => html`<line class="tick" x1="${center(t).toFixed(1)}" x2="${center(t).toFixed(1)}" y1="${H - bottom}" y2="${H - bottom + 4}"></line><text class="x" x="${center(t).toFixed(1)}" y="${H - 10}" text-anchor="${anchor(center(t))}" data-tick="${t.toISOString()}">${tickText(t)}</text>`)}
${bars}
${max === 0 ? html`<text class="empty" x="${(W / 2).toFixed(0)}" y="${(H / 2).toFixed(0)}" text-anchor="middle">no model calls in this window</text>` : ''}
</svg>`;
}
