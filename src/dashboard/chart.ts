import { html, type Html } from './html';
import { fmtTokens } from './format';

export interface StackedBucket {
  label: string;
  /** input, output, cache read, cache write */
  values: [number, number, number, number];
}

const SERIES = [
  ['in', 'input'],
  ['out', 'output'],
  ['cr', 'cache read'],
  ['cw', 'cache write'],
] as const;

/** A stacked bar chart drawn as SVG on the server: no library, no canvas, no script; a <title> per bar. */
export function stackedBars(buckets: StackedBucket[], opts: { width?: number; height?: number } = {}): Html {
  const W = opts.width ?? 1100;
  const H = opts.height ?? 260;
  const left = 56;
  const bottom = 28;
  const plotW = W - left - 8;
  const plotH = H - bottom - 10;
  const max = Math.max(1, ...buckets.map((b) => b.values.reduce((a, v) => a + v, 0)));
  const step = buckets.length ? plotW / buckets.length : plotW;
  const bar = Math.max(1, Math.min(60, step * 0.8));
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => ({ y: 10 + plotH * (1 - f), label: fmtTokens(Math.round(max * f)) }));
  const every = Math.max(1, Math.ceil(buckets.length / 12));
  const bars = buckets.map((b, i) => {
    const x = left + i * step + (step - bar) / 2;
    let y = 10 + plotH;
    const segs = b.values.map((v, s) => {
      const h = (v / max) * plotH;
      y -= h;
      return h > 0 ? html`<rect class="${SERIES[s]![0]}" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${bar.toFixed(1)}" height="${h.toFixed(1)}"></rect>` : '';
    });
    const total = b.values.reduce((a, v) => a + v, 0);
    const tip = `${b.label}: ${fmtTokens(total)} tokens — ${SERIES.map(([, n], s) => `${n} ${fmtTokens(b.values[s]!)}`).join(', ')}`;
    const label = i % every === 0 ? html`<text x="${(x + bar / 2).toFixed(1)}" y="${H - 10}" text-anchor="middle">${b.label}</text>` : '';
    return html`<g data-bucket="${b.label}"><title>${tip}</title>${segs}</g>${label}`;
  });
  return html`<div class="legend">${SERIES.map(([c, n]) => html`<span><i class="${c}"></i>${n}</span>`)}</div>
<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="tokens per bucket, stacked by kind">
${ticks.map((t) => html`<line x1="${left}" x2="${W - 8}" y1="${t.y.toFixed(1)}" y2="${t.y.toFixed(1)}"></line><text x="${left - 6}" y="${(t.y + 4).toFixed(1)}" text-anchor="end">${t.label}</text>`)}
${bars}
</svg>`;
}
