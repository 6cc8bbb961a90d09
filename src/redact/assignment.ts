/**
 * The search for `name <op> value` assignments (forms.ts' secret-named-assignment detector), led by
 * the operators rather than by every position of the string (issue 31: the regex's scan alone was
 * ~0.5 s of a month's 10 s import, on strings most of which hold no `:` or `=` at all).
 */

// `name <op> value` where name is a word, optionally quoted (also \"-escaped, as in JSON text inside JSON).
// The name is taken whole (a lookahead's capture, matched again by \2: an atomic group): what may follow
// it is never a name character, so a shorter name could never match, and the engine no longer tries each
// (same matches, ~35% less time on prose).
export const ASSIGNMENT = /(?<![\w.$])(\\?["'`]?)(?=([A-Za-z_][\w.-]{0,80}))\2\1\]?[ \t]*(:=|=>|=|:)(?!=)[ \t]*/g;
/** The same pattern tried at one position only. */
const ASSIGNMENT_AT = new RegExp(ASSIGNMENT.source, 'y');

const table = (chars: RegExp) => {
  const t = new Uint8Array(128);
  for (let c = 0; c < 128; c++) if (chars.test(String.fromCharCode(c))) t[c] = 1;
  return t;
};
/** What a match holds before the blanks before its operator: `\`, a quote, name characters, `]`. */
const BEFORE_OP = table(/[\\"'`\w.\-\]]/);
/** What a match may start with: `\`, a quote, or a name's first character. */
const STARTS = table(/[\\"'`A-Za-z_]/);
/** The pattern's lookbehind: no match starts right after one of these. */
const NOT_AFTER = table(/[\w.$]/);
/** The most a match holds before its operator's blanks: `\`, a quote, an 81-character name, a quote, `]`. */
const MAX_BEFORE_BLANKS = 85;

const isBlank = (c: number) => c === 0x20 || c === 0x09;

/**
 * The first match of ASSIGNMENT at or after `from`: exactly what `ASSIGNMENT.exec` gives with
 * `lastIndex = from` (a test holds the two equal). Every match holds an operator, and nothing in a
 * match before its operator is `:` or `=`, so a match starting in [from, o) has the first operator
 * at or after `from`, o, as its own; it starts after the blanks before o, at most 85 characters
 * before them, past only characters a match may hold, on a character a match may start with and
 * not after one its lookbehind refuses. Only those few positions are tried; none are between.
 */
export function nextAssignment(s: string, from: number): RegExpExecArray | null {
  let at = from;
  let colon = -1;
  let equals = -1;
  for (;;) {
    if (colon !== -2 && colon < at) colon = s.indexOf(':', at);
    if (colon === -1) colon = -2; // -2: none left
    if (equals !== -2 && equals < at) equals = s.indexOf('=', at);
    if (equals === -1) equals = -2;
    if (colon === -2 && equals === -2) return null;
    const op = colon === -2 ? equals : equals === -2 ? colon : Math.min(colon, equals);
    let blanks = op;
    while (blanks > at && isBlank(s.charCodeAt(blanks - 1))) blanks--;
    const lowest = Math.max(at, blanks - MAX_BEFORE_BLANKS);
    let p = blanks;
    while (p > lowest && isAllowed(BEFORE_OP, s.charCodeAt(p - 1))) p--;
    for (; p < blanks; p++) {
      if (!isAllowed(STARTS, s.charCodeAt(p)) || (p > 0 && isAllowed(NOT_AFTER, s.charCodeAt(p - 1)))) continue;
      ASSIGNMENT_AT.lastIndex = p;
      const m = ASSIGNMENT_AT.exec(s);
      if (m !== null) return m;
    }
    at = op + 1;
  }
}

const isAllowed = (t: Uint8Array, c: number) => c < 128 && t[c] === 1;
