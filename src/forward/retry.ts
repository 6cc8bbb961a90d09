/** Exponential backoff with ±20% jitter: 1 s, 2 s, 4 s … capped at 30 s (the Collector's cap). */
export function backoffMs(attempt: number, initialMs = 1000, maxMs = 30_000, random = Math.random): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Longest Retry-After we wait for (a receiver asking for an hour is still retried within 5 minutes). */
const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** `Retry-After` in seconds or as an HTTP date (RFC 9110 §10.2.3), in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  const t = v.trim();
  if (/^\d+$/.test(t)) return Math.min(MAX_RETRY_AFTER_MS, Number(t) * 1000);
  const date = Date.parse(t);
  if (Number.isNaN(date)) return undefined;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, date - now));
}
