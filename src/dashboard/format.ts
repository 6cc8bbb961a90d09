/** Display formats shared by the pages. Times are UTC, as the CLI prints them. */
export function fmtTime(ns: bigint | null | undefined): string {
  if (ns === null || ns === undefined) return '—';
  return new Date(Number(ns / 1_000_000n)).toISOString().replace('T', ' ').slice(0, 19);
}

export function isoTime(ns: bigint): string {
  return new Date(Number(ns / 1_000_000n)).toISOString();
}

export function fmtDuration(ns: bigint): string {
  const s = Number(ns / 1_000_000n) / 1000;
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

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

export function fmtBytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}
