type Scales = typeof import('d3-scale');

/** A time axis counted from a session's start: one unit and one format for every tick. */
export interface ElapsedAxis {
  unit: 'ms' | 's' | 'min' | 'h';
  /** ms from the start → x */
  x: (ms: number) => number;
  ticks: { ms: number; x: number; label: string; anchor: 'start' | 'middle' | 'end' }[];
}

const UNITS: [ElapsedAxis['unit'], number][] = [['h', 3_600_000], ['min', 60_000], ['s', 1000], ['ms', 1]];
/** px a tick label takes with its gap: labels never touch (measured in Chromium at 11 px: "1,500" is 30 px) */
const LABEL_PX = 64;

/**
 * The unit is the largest one the whole span fills twice (a 90 s session is counted in seconds, a
 * 3 min one in minutes); ticks are d3's round numbers in that unit, all printed with one precision
 * (d3's tickFormat for the tick step), as many as fit `LABEL_PX` apart.
 */
export function elapsedAxis(d3: Scales, endMs: number, x0: number, x1: number): ElapsedAxis {
  const [unit, size] = UNITS.find(([, s]) => endMs >= 2 * s) ?? UNITS[UNITS.length - 1]!;
  const s = d3.scaleLinear().domain([0, Math.max(endMs / size, 1e-9)]).range([x0, x1]).nice();
  const count = Math.max(2, Math.floor((x1 - x0) / LABEL_PX));
  const values = s.ticks(count);
  const format = s.tickFormat(count, ',f');
  const [d0, d1] = s.domain() as [number, number];
  const scale = d3.scaleLinear().domain([d0 * size, d1 * size]).range([x0, x1]);
  return {
    unit,
    x: (ms) => scale(ms),
    ticks: values.map((v) => {
      const px = s(v);
      return { ms: v * size, x: px, label: format(v), anchor: px > x1 - 20 ? 'end' : px < x0 + 20 ? 'start' : 'middle' };
    }),
  };
}
