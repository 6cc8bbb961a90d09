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
/** The most a match holds before its operator's blanks: `\"`, an 81-character name, `\"` again (the group is repeated whole), `]`. */
const MAX_BEFORE_BLANKS = 86;

/** An operator this close to where the search starts is left to the regex's scan. */
const DENSE = 32;

const isBlank = (c: number) => c === 0x20 || c === 0x09;

/**
 * The matches of ASSIGNMENT in one string, in order: `next(from)` is exactly what `ASSIGNMENT.exec`
 * gives with `lastIndex = from` (a test holds the two equal). Every match holds an operator, and
 * nothing in a match before its operator is `:` or `=`, so a match starting in [from, o) has the
 * first operator at or after `from`, o, as its own; it starts after the blanks before o, at most 86
 * characters before them, past only characters a match may hold, on a character a match may start
 * with and not after one its lookbehind refuses. Only those few positions are tried; none between.
 */
export class AssignmentScan {
  /** the first `:` and `=` at or after `from` (-1: none), kept from call to call: a `=` far ahead
   * (64 KB of `a: b`, then one `=`) is looked for once, not again from each match (quadratic) */
  private from = 0;
  private colon: number;
  private equals: number;

  constructor(private readonly s: string) {
    this.colon = s.indexOf(':');
    this.equals = s.indexOf('=');
  }

  next(from: number): RegExpExecArray | null {
    const s = this.s;
    let at = from;
    for (;;) {
      const op = this.operator(at);
      if (op < 0) return null;
      // operators close together (JSON, code): the regex's own scan from here costs no more than the
      // steps below, and finds the same first match
      if (op - at < DENSE) {
        ASSIGNMENT.lastIndex = at;
        return ASSIGNMENT.exec(s);
      }
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

  /** The first operator character at or after `at`, or -1. */
  private operator(at: number): number {
    if (at < this.from) {
      this.colon = this.s.indexOf(':', at);
      this.equals = this.s.indexOf('=', at);
    } else {
      // one found from an earlier start is still the first at or after `at` unless it lies before it
      if (this.colon >= 0 && this.colon < at) this.colon = this.s.indexOf(':', at);
      if (this.equals >= 0 && this.equals < at) this.equals = this.s.indexOf('=', at);
    }
    this.from = at;
    const { colon, equals } = this;
    return colon < 0 ? equals : equals < 0 ? colon : Math.min(colon, equals);
  }
}

const isAllowed = (t: Uint8Array, c: number) => c < 128 && t[c] === 1;
