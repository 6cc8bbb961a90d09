/** Beacon timestamps: UTC with fixed nanoseconds, `2006-01-02T15:04:05.000000000Z`. */
export function formatTimestamp(unixNano: bigint): string {
  const ms = unixNano / 1_000_000n;
  const iso = new Date(Number(ms)).toISOString(); // 2006-01-02T15:04:05.000Z
  let frac = (unixNano % 1_000_000_000n).toString();
  if (unixNano < 0n) frac = '0';
  return `${iso.slice(0, 19)}.${frac.padStart(9, '0')}Z`;
}

let lastNowNs = 0n;

/**
 * The wall clock, strictly increasing within a process: events stamped in the same millisecond keep
 * their order one microsecond apart. Read from Date.now() on every call, never from a monotonic
 * clock anchored at start: that one stops while a laptop sleeps, and a collector running for days
 * would stamp hook events hours in the past after a suspend (and `performance` costs a hook process
 * the perf_hooks modules). A clock stepped back more than a second is followed at once.
 */
export function nowUnixNano(): bigint {
  let ns = BigInt(Date.now()) * 1_000_000n;
  if (ns <= lastNowNs && lastNowNs - ns < 1_000_000_000n) ns = lastNowNs + 1000n;
  lastNowNs = ns;
  return ns;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `±HH:MM` for an offset east of UTC in minutes. */
function offsetText(minutesEast: number): string {
  const a = Math.abs(minutesEast);
  return `${minutesEast < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

/**
 * A timestamp for people: local time with its UTC offset (`2026-12-01 10:15:30.123+01:00`), or UTC
 * (`…Z`) with `utc`. The offset is per timestamp: a daylight-saving change shows.
 */
export function formatDisplayTime(unixNano: bigint, utc = false): string {
  const d = new Date(Number(unixNano / 1_000_000n));
  if (Number.isNaN(d.getTime())) return '';
  if (utc) return `${d.toISOString().slice(0, 23).replace('T', ' ')}Z`;
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
  return `${date} ${time}${offsetText(-d.getTimezoneOffset())}`;
}

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** `s`, `sec`, `seconds`, `min`, `hours`, … → the unit's letter (as journalctl and git log spell them). */
const UNIT_WORDS: Record<string, 's' | 'm' | 'h' | 'd' | 'w'> = {
  s: 's', sec: 's', secs: 's', second: 's', seconds: 's',
  m: 'm', min: 'm', mins: 'm', minute: 'm', minutes: 'm',
  h: 'h', hr: 'h', hrs: 'h', hour: 'h', hours: 'h',
  d: 'd', day: 'd', days: 'd',
  w: 'w', week: 'w', weeks: 'w',
};
const UNIT_MS = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 };

/** Midnight starting the day `days` from today's, local (or UTC). */
function midnight(now: number, days: number, utc: boolean | undefined): number {
  const d = new Date(now);
  return utc ? Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days) : new Date(d.getFullYear(), d.getMonth(), d.getDate() + days).getTime();
}

/**
 * The words people type for a time (journalctl's and git log's): `now`, `today`, `yesterday`,
 * `tomorrow` (midnight, local unless `utc`), and a duration back from now with or without `ago`:
 * `2h`, `1h ago`, `90 min ago`, `3 days ago`. Undefined when `v` is none of them.
 */
function timeWord(v: string, now: number, utc: boolean | undefined): number | undefined {
  const word = v.toLowerCase();
  if (word === 'now') return now;
  const day = { today: 0, yesterday: -1, tomorrow: 1 }[word];
  if (day !== undefined) return midnight(now, day, utc);
  const rel = /^(\d+)\s*([a-z]+)(\s+ago)?$/.exec(word);
  const unit = rel ? UNIT_WORDS[rel[2]!] : undefined;
  if (!rel || !unit) return undefined;
  return now - Number(rel[1]) * UNIT_MS[unit];
}

/**
 * Parses `--since`/`--until` values — the one time parser of every command and the dashboard: RFC
 * 3339 timestamps (`2026-11-30T09:00:00Z`, `…+02:00`), a date or date-time without a zone — local
 * time, as a person means it, or UTC with `utc` — a duration back from now (`90s`, `15m`, `2h`,
 * `7d`, `2w`, `1h ago`, `3 days ago`) or a word (`now`, `today`, `yesterday`, `tomorrow`). Returns
 * ns since the epoch, or an error that says what is wrong (`2026-02-31` is no date; JavaScript's
 * Date would make it March 3).
 */
export function parseTimeBound(value: string, opts: { now?: number; utc?: boolean } = {}): { ns: bigint } | { error: string } {
  const now = opts.now ?? Date.now();
  const v = value.trim();
  const word = timeWord(v, now, opts.utc);
  if (word !== undefined) return { ns: BigInt(word) * 1_000_000n };
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(v);
  if (!m) return { error: `not a time or duration: "${value}" (use 2026-11-30, 2026-11-30T09:00, 2026-11-30T09:00:00Z, 30m, 2h, 7d, 1h ago, today or yesterday)` };
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4] ?? '0', m[5] ?? '0', m[6] ?? '0'].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12) return { error: `"${value}": there is no month ${month}` };
  if (day < 1 || day > daysIn(year, month)) return { error: `"${value}": ${m[1]}-${m[2]} has no day ${day}` };
  if (hour > 23 || minute > 59 || second > 59) return { error: `"${value}": ${pad(hour)}:${pad(minute)}:${pad(second)} is not a time of day` };
  let ms: number;
  if (m[8]) {
    const z = m[8].toUpperCase();
    const off = z === 'Z' ? 0 : (z[0] === '-' ? -1 : 1) * (Number(z.slice(1, 3)) * 60 + Number(z.slice(-2)));
    if (Math.abs(off) > 18 * 60) return { error: `"${value}": ${m[8]} is not a UTC offset` };
    ms = Date.UTC(year, month - 1, day, hour, minute, second) - off * 60_000;
  } else if (opts.utc) {
    ms = Date.UTC(year, month - 1, day, hour, minute, second);
  } else {
    ms = new Date(year, month - 1, day, hour, minute, second).getTime();
  }
  const frac = m[7] ? BigInt(m[7].slice(1).padEnd(9, '0')) : 0n;
  return { ns: BigInt(ms) * 1_000_000n + frac };
}

export type Calendar = 'hour' | 'day' | 'week' | 'month';

/**
 * The calendar bucket an instant falls in, in the local zone (or UTC): `2026-11-30T09:00+01:00`,
 * `2026-11-30`, `2026-W48 (from 2026-11-23)` (ISO weeks start on Monday), `2026-11`.
 */
export function calendarLabel(ms: number, by: Calendar, utc = false): string {
  const d = new Date(ms);
  const [y, mo, day, h, dow] = utc
    ? [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCDay()]
    : [d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getDay()];
  const date = (yy: number, mm: number, dd: number) => `${yy}-${pad(mm + 1)}-${pad(dd)}`;
  switch (by) {
    case 'hour':
      return `${date(y, mo, day)}T${pad(h)}:00${utc ? 'Z' : offsetText(-d.getTimezoneOffset())}`;
    case 'day':
      return date(y, mo, day);
    case 'month':
      return `${y}-${pad(mo + 1)}`;
    case 'week': {
      // Calendar arithmetic on the date alone (UTC noon avoids any daylight-saving edge).
      const monday = new Date(Date.UTC(y, mo, day, 12) - ((dow + 6) % 7) * 86400e3);
      const thursday = new Date(monday.getTime() + 3 * 86400e3);
      const isoYear = thursday.getUTCFullYear();
      const week = Math.floor((thursday.getTime() - Date.UTC(isoYear, 0, 1, 12)) / (7 * 86400e3)) + 1;
      return `${isoYear}-W${pad(week)} (from ${date(monday.getUTCFullYear(), monday.getUTCMonth(), monday.getUTCDate())})`;
    }
  }
}

/** A duration for people: `850 ms`, `4.2 s`, `3 min 5 s`, `2 h 10 min` (the dashboard and the CLI alike). */
export function formatDuration(ns: bigint): string {
  const s = Number(ns / 1_000_000n) / 1000;
  if (s < 1) return `${Math.round(s * 1000)} ms`;
  if (s < 60) return `${s.toFixed(1)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}
