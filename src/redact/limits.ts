/** Per-string limits, in UTF-8 bytes, as the Go Beacon applies them. */
export const STRING_LIMIT = 4096;
export const STRUCTURED_STRING_LIMIT = 2048;
/** A whole event, serialized, may not exceed this. */
export const EVENT_LIMIT = 64 * 1024;

export const MARK = '...[truncated]';

/** Cuts `s` to at most `limit` UTF-8 bytes, marking the cut; never splits a character. */
export function truncateString(s: string, limit: number): { value: string; truncated: boolean } {
  if (s.length * 3 <= limit) return { value: s, truncated: false };
  // counted before it is copied: most strings this long still fit, and copying each was ~3% of an import's redaction
  if (Buffer.byteLength(s, 'utf8') <= limit) return { value: s, truncated: false };
  const buf = Buffer.from(s, 'utf8');
  if (limit < 32) return { value: cutUtf8(buf, limit), truncated: true };
  return { value: cutUtf8(buf, limit - MARK.length - 1) + MARK, truncated: true };
}

function cutUtf8(buf: Buffer, n: number): string {
  let end = Math.min(n, buf.length);
  // back off over continuation bytes (10xxxxxx) so no character is split
  while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.toString('utf8', 0, end);
}
