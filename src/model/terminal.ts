/**
 * Terminal safety: recorded content is hostile (an agent's prompt can hold `ESC[31m`, a cursor
 * move, an OSC 52 clipboard write or a bidi override), so everything printed for a human passes
 * through here. Control characters become visible `\uXXXX` escapes — which are also valid JSON
 * escapes, so a JSON line stays the same JSON value.
 */
// C0 (tab and newline handled apart), DEL, C1, and the bidi/direction controls (U+061C, U+200E/F,
// U+202A–E, U+2066–9) that reorder what the user sees.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_OR_LAYOUT = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const hex = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `s` with every control character escaped. `layout: true` (multi-line output) keeps newlines and
 * tabs; otherwise (a table cell, one line) they are escaped too.
 */
export function escapeControls(s: string, options: { layout?: boolean } = {}): string {
  const re = options.layout ? UNSAFE : UNSAFE_OR_LAYOUT;
  re.lastIndex = 0;
  return re.test(s) ? s.replace(re, hex) : s;
}
