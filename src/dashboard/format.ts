import { formatBytes } from '../model/size';
/** Display formats shared by the pages. Times are UTC, as the CLI prints them. */
export function fmtTime(ns: bigint | null | undefined): string {
  if (ns === null || ns === undefined) return '—';
  return new Date(Number(ns / 1_000_000n)).toISOString().replace('T', ' ').slice(0, 19);
}

export function isoTime(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n)).toISOString();
}

/** Shared with the CLI: one way to say how long something took. */
export { formatDuration as fmtDuration } from '../model/time';

export const fmtInt = (n: number): string => n.toLocaleString('en-US');

/**
 * Token counts in one style everywhere (tables, cards, chart axes): below 1,000 as they are, then
 * three significant digits and a unit — `1.5 k`, `11.2 k`, `112 k`, `2.35 M` (issue 24 item 6: the
 * pages mixed `11.2 k` and `1,500`).
 */
export function fmtTokens(n: number): string {
  const units: [number, string][] = [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [size, unit] of units) if (Math.abs(n) >= size) return `${Number((n / size).toPrecision(3))} ${unit}`;
  return fmtInt(n);
}

export function fmtUsd(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  return `$${x.toFixed(x < 1 ? 4 : 2)}`;
}

/** sizes as the CLI prints them (src/model/size.ts) */
export const fmtBytes = formatBytes;
