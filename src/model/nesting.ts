/**
 * How deep a parsed JSON value may nest before Beacon cuts it. Parsing is iterative (V8's JSON.parse
 * takes any depth), but every walk after it — redaction, structuredClone, JSON.stringify — recurses:
 * tool arguments nested 5,000 deep (30 KB) overflowed the stack, lost the hook event and failed a
 * whole OTLP export (issue 22 item 14). Real arguments nest a handful of levels.
 */
export const MAX_NESTING = 64;
/** What replaces an object or array nested deeper than MAX_NESTING: the event keeps everything above it. */
export const NESTED_TOO_DEEP = '...[truncated: nested too deep]';

/**
 * Replaces, in place and without recursion, every object or array deeper than `max` levels below
 * `value` with NESTED_TOO_DEEP. Returns `value`, and whether anything was cut.
 */
export function cutDeepNesting<T>(value: T, max = MAX_NESTING): { value: T; cut: boolean } {
  if (value === null || typeof value !== 'object') return { value, cut: false };
  let cut = false;
  const stack: [Record<string, unknown>, number][] = [[value as unknown as Record<string, unknown>, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    for (const key of Object.keys(node)) {
      const v = node[key];
      if (v === null || typeof v !== 'object') continue;
      if (depth >= max) {
        node[key] = NESTED_TOO_DEEP;
        cut = true;
      } else stack.push([v as Record<string, unknown>, depth + 1]);
    }
  }
  return { value, cut };
}
