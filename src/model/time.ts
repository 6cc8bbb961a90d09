/** Beacon timestamps: UTC with fixed nanoseconds, `2006-01-02T15:04:05.000000000Z`. */
export function formatTimestamp(unixNano: bigint): string {
  const ms = unixNano / 1_000_000n;
  const iso = new Date(Number(ms)).toISOString(); // 2006-01-02T15:04:05.000Z
  let frac = (unixNano % 1_000_000_000n).toString();
  if (unixNano < 0n) frac = '0';
  return `${iso.slice(0, 19)}.${frac.padStart(9, '0')}Z`;
}

/** Wall clock with microsecond resolution (Date.now() alone would make same-millisecond events tie). */
export function nowUnixNano(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e3)) * 1000n;
}

/**
 * Parses `--since`/`--until` values: RFC 3339 timestamps, or a duration back from now (`90s`, `15m`, `2h`, `7d`).
 * Returns ns since the epoch, or undefined for an unparseable value.
 */
export function parseTimeBound(value: string, now = Date.now()): bigint | undefined {
  const rel = /^(\d+)\s*(s|m|h|d|w)$/.exec(value.trim());
  if (rel) {
    const unit = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 }[rel[2] as 's' | 'm' | 'h' | 'd' | 'w'];
    return BigInt(now - Number(rel[1]) * unit) * 1_000_000n;
  }
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(value.trim());
  if (!m) return undefined;
  const base = Date.parse(`${m[1]}T${m[2] ?? '00:00:00'}${m[4] ?? 'Z'}`);
  if (Number.isNaN(base)) return undefined;
  const frac = m[3] ? BigInt(m[3].slice(1).padEnd(9, '0')) : 0n;
  return BigInt(base) * 1_000_000n + frac;
}
