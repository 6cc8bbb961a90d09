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
  for (let i = 0; i < units.length; i++) {
    const [size, unit] = units[i]!;
    if (Math.abs(n) < size) continue;
    const shown = Number((n / size).toPrecision(3));
    // 999,999 rounds to 1000 k: that is 1 M (G is the last unit)
    if (Math.abs(shown) >= 1000 && i > 0) return `${Number((n / units[i - 1]![0]).toPrecision(3))} ${units[i - 1]![1]}`;
    return `${shown} ${unit}`;
  }
  return fmtInt(n);
}

export function fmtUsd(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  return `$${x.toFixed(x < 1 ? 4 : 2)}`;
}

/** sizes as the CLI prints them (src/model/size.ts) */
export const fmtBytes = formatBytes;
