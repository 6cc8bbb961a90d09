/**
 * What an error reply may show of a sender's input: the start of a string, JSON-escaped (no
 * control character or quote reaches a terminal or a log unescaped), and its length; of anything
 * else its type. Enough to find the bad field, too little to echo a secret or a whole id back to
 * whoever reads the reply or the log (issue 22 item 11).
 */
export function quoteInput(v: unknown, max = 12): string {
  if (typeof v === 'string') {
    const chars = [...v];
    if (chars.length <= max) return JSON.stringify(v);
    return `${JSON.stringify(chars.slice(0, max).join('')).slice(0, -1)}…" (${chars.length} characters)`;
  }
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return quoteInput(String(v), max).replace(/^"|"$/g, '');
  if (v === null) return 'null';
  return Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v;
}
