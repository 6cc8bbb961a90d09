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

export function fmtTokens(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(1)} k`;
  return fmtInt(n);
}

export function fmtUsd(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  return `$${x.toFixed(x < 1 ? 4 : 2)}`;
}

/** sizes as the CLI prints them (src/model/size.ts) */
export const fmtBytes = formatBytes;
