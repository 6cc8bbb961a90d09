/**
 * Secret redaction of one string: gitleaks' published token-format rules (data, see
 * gitleaks-rules.ts) and Beacon's structural and form detectors (forms.ts). One keyword scan decides
 * which of them run at all; most strings hold no keyword and cost that scan only.
 */
import { DETECTORS, type Detector } from './forms';
import { GITLEAKS } from './gitleaks-rules';
import { KEYWORD_TRIE } from './keyword-trie';
import { hasBase64Run, RuleMatcher, type TextRange } from './rule-set';

export const REDACTED = '[REDACTED]';
/** A redacted value this long or longer is also replaced wherever else it appears in the event. */
const MIN_PROPAGATED = 8;

const matcher = new RuleMatcher(GITLEAKS);

export type Runner = { kind: 'rule'; id: string } | { kind: 'detector'; detector: Detector };

/** What the trie escapes: regex syntax (set before the prefilter is built, at load). */
const REGEX_SYNTAX = new Set('.*+?^${}()|[]\\/-');

/** keyword → the rules and detectors it names directly */
const direct = new Map<string, Runner[]>();
/** detectors no keyword announces (a bare AWS secret key): they run on every string this long */
const UNGATED: Detector[] = [];
const UNGATED_MIN_LENGTH = 40;
const PREFILTER = buildPrefilter();

function buildPrefilter(): RegExp {
  const add = (k: string, r: Runner) => direct.set(k, [...(direct.get(k) ?? []), r]);
  // one Runner per rule and per detector, shared by all its keywords: a string is scanned for the set
  // of runners its keywords name, so a detector with ten keywords (the secret names) runs once, not
  // once per keyword found (it ran up to ten times over the same string)
  const rules = new Map<string, Runner>();
  for (const [k, ids] of matcher.keywordRules()) {
    for (const id of ids) {
      let r = rules.get(id);
      if (!r) rules.set(id, (r = { kind: 'rule', id }));
      add(k, r);
    }
  }
  for (const d of DETECTORS) {
    const r: Runner = { kind: 'detector', detector: d };
    for (const k of d.keywords) add(k, r);
  }
  for (const d of DETECTORS) if (d.keywords.length === 0) UNGATED.push(d);
  return new RegExp(prefilterSource(prefilterKeywords()), 'gi');
}

/** Every keyword, in the order the trie is built from (longest first; the sort is stable). */
export function prefilterKeywords(): string[] {
  return [...direct.keys()].sort((a, b) => b.length - a.length);
}

/**
 * The trie's source as keyword-trie.ts holds it for exactly these keywords (building it costs every
 * hook process ~1.5 ms of its start, issue 25), or built now when the rules or detectors changed
 * since that file was made: a stale file costs time, never a missed keyword. A test keeps it current.
 */
function prefilterSource(keywords: string[]): string {
  return KEYWORD_TRIE.keywords === keywords.join('\n') ? KEYWORD_TRIE.source : trie(keywords);
}

/**
 * keyword → what it triggers, including every shorter keyword it contains (the scan reports the
 * longest). Worked out for a keyword when a string first holds it, not for all ~300 at load: that
 * was ~90,000 substring tests in every hook process, which mostly sees no keyword at all.
 */
const triggers = new Map<string, Runner[]>();
function triggersOf(keyword: string): Runner[] {
  let all = triggers.get(keyword);
  if (!all) {
    const found = new Set<Runner>();
    for (const [other, runners] of direct) if (keyword.includes(other)) for (const r of runners) found.add(r);
    triggers.set(keyword, (all = [...found]));
  }
  return all;
}

/**
 * The keywords as one regex shaped like a trie (`a(?:kia|sia)|x(?:ox[abprs]?)…`): at each position
 * the engine follows one branch instead of trying ~300 alternatives, which is most of the cost of
 * a string that holds no secret. A keyword that is a prefix of another matches the longer first.
 */
export function trie(words: string[]): string {
  interface Node { end: boolean; next: Map<string, Node> }
  const root: Node = { end: false, next: new Map() };
  for (const w of words) {
    let n = root;
    for (const ch of w) {
      let c = n.next.get(ch);
      if (!c) n.next.set(ch, (c = { end: false, next: new Map() }));
      n = c;
    }
    n.end = true;
  }
  const esc = (ch: string) => (REGEX_SYNTAX.has(ch) ? `\\${ch}` : ch);
  const emit = (n: Node): string => {
    if (n.next.size === 0) return '';
    const alts = [...n.next].map(([ch, c]) => esc(ch) + emit(c));
    const body = alts.length === 1 ? alts[0]! : `(?:${alts.join('|')})`;
    return n.end ? `(?:${body})?` : body;
  };
  return emit(root);
}

/**
 * Short strings recur (model, provider, tool and span names, status words): their "no keyword"
 * verdict is remembered, bounded, so the keyword scan runs once per distinct value.
 */
const CLEAN_SHORT = new Set<string>();
const SHORT = 64;
const CLEAN_MAX = 4096;

/** Cheap pre-check: does `s` hold any keyword of any rule or detector? */
export function maySecret(s: string): boolean {
  if (s.length <= SHORT && CLEAN_SHORT.has(s)) return false;
  const scanner = keywordScanner(s.length);
  let hit: boolean;
  if (scanner) hit = scanner.first(s) >= 0;
  else {
    PREFILTER.lastIndex = 0;
    hit = PREFILTER.test(s);
  }
  // the ungated detector (a bare AWS secret key) needs 40 base64 characters in a row
  hit ||= s.length >= UNGATED_MIN_LENGTH && hasBase64Run(s, UNGATED_MIN_LENGTH);
  if (!hit && s.length <= SHORT) {
    if (CLEAN_SHORT.size >= CLEAN_MAX) CLEAN_SHORT.clear();
    CLEAN_SHORT.add(s);
  }
  return hit;
}

/** The rules and detectors the keywords in `s` name (`via` for the test that holds the two ways equal). */
export function runnersOf(s: string, via: 'auto' | 'regex' | 'automaton' = 'auto'): Set<Runner> {
  const run = new Set<Runner>();
  const scanner = via === 'regex' ? undefined : via === 'automaton' ? builtScanner() : keywordScanner(s.length);
  if (scanner) {
    scanner.each(s, (runners) => {
      for (const r of runners) run.add(r);
    });
    return run;
  }
  PREFILTER.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PREFILTER.exec(s)) !== null) {
    for (const r of triggersOf(m[0].toLowerCase())) run.add(r);
    PREFILTER.lastIndex = m.index + 1; // keywords overlap ("acce-sK-ey" holds "sk" and "key")
  }
  return run;
}

/** The places of every secret in `s`, merged and in order. */
export function findSecrets(s: string): TextRange[] {
  const run = runnersOf(s);
  const ranges: TextRange[] = [];
  if (s.length >= UNGATED_MIN_LENGTH) for (const d of UNGATED) d.find(s, ranges);
  if (run.size === 0) return merge(ranges);
  for (const r of run) {
    if (r.kind === 'rule') matcher.find(r.id, s, ranges);
    else r.detector.find(s, ranges);
  }
  return merge(ranges);
}

/**
 * The keyword scan as an automaton (Aho–Corasick over the keywords' characters, ASCII case folded as
 * the regex's `i` flag folds it): one table step per character, where the trie regex costs 20–34 ns a
 * character here (a month's import scans 47 MB of strings: 1.3 s of its 8.9 s, measured
 * 2026-12-02). It finds every keyword at every position, so it names the same runners as the
 * regex's longest match at each position with all the keywords inside it (a test holds the two
 * equal). Built once a process has scanned `SCANNER_AFTER` characters with the regex (the collector,
 * an import; ~2 ms to build, which a hook, scanning a few kilobytes, never pays).
 */
const SCANNER_AFTER = 1 << 20;
let regexScanned = 0;
let scanner: KeywordScanner | null | undefined;

function keywordScanner(length: number): KeywordScanner | undefined {
  if (scanner === undefined) {
    regexScanned += Math.min(length, SCANNER_AFTER);
    if (regexScanned < SCANNER_AFTER) return undefined;
    scanner = KeywordScanner.build(direct);
  }
  return scanner ?? undefined;
}

/** The automaton, built now if it is not yet (tests); throws when the keywords do not allow one. */
function builtScanner(): KeywordScanner {
  const built = keywordScanner(Infinity);
  if (!built) throw new Error('the keywords cannot be scanned by the automaton');
  return built;
}

/** Whether keyword scans use the automaton yet (tests). */
export const scannerInUse = (): boolean => scanner != null;

class KeywordScanner {
  private constructor(
    /** char code (< 128) → its class; 0 for a character no keyword holds */
    private readonly classOf: Uint8Array,
    private readonly classes: number,
    /** state × class → next state */
    private readonly next: Uint16Array,
    /** state → the runners of every keyword ending there (its own and its suffixes'), or undefined */
    private readonly out: (Runner[] | undefined)[],
  ) {}

  /** null when a keyword is not lowercase printable ASCII (the regex's case folding then is not this one's). */
  static build(keywords: ReadonlyMap<string, Runner[]>): KeywordScanner | null {
    const classOf = new Uint8Array(128);
    let classes = 1;
    for (const k of keywords.keys()) {
      if (!/^[\x21-\x7e]+$/.test(k) || k !== k.toLowerCase()) return null;
      for (const ch of k) {
        const c = ch.charCodeAt(0);
        if (classOf[c] === 0) {
          classOf[c] = classes++;
          const upper = ch.toUpperCase().charCodeAt(0);
          if (upper !== c) classOf[upper] = classOf[c]!;
        }
      }
    }
    // the trie, then the failure links breadth first, folded into a full transition table
    const goto: Map<number, number>[] = [new Map()];
    const own: Runner[][] = [[]];
    for (const [k, runners] of keywords) {
      let st = 0;
      for (const ch of k) {
        const cls = classOf[ch.charCodeAt(0)]!;
        let to = goto[st]!.get(cls);
        if (to === undefined) {
          to = goto.length;
          goto.push(new Map());
          own.push([]);
          goto[st]!.set(cls, to);
        }
        st = to;
      }
      own[st]!.push(...runners);
    }
    if (goto.length > 0xffff) return null;
    const next = new Uint16Array(goto.length * classes);
    const fail = new Uint16Array(goto.length);
    const out: (Runner[] | undefined)[] = new Array(goto.length).fill(undefined);
    const queue: number[] = [];
    for (let cls = 1; cls < classes; cls++) {
      const to = goto[0]!.get(cls) ?? 0;
      next[cls] = to;
      if (to !== 0) queue.push(to);
    }
    for (let i = 0; i < queue.length; i++) {
      const st = queue[i]!;
      const inherited = out[fail[st]!];
      out[st] = own[st]!.length > 0 || inherited ? [...new Set([...own[st]!, ...(inherited ?? [])])] : undefined;
      for (let cls = 1; cls < classes; cls++) {
        const to = goto[st]!.get(cls);
        if (to === undefined) next[st * classes + cls] = next[fail[st]! * classes + cls]!;
        else {
          fail[to] = next[fail[st]! * classes + cls]!;
          next[st * classes + cls] = to;
          queue.push(to);
        }
      }
    }
    return new KeywordScanner(classOf, classes, next, out);
  }

  /** The index just past the first keyword in `s`, or -1. */
  first(s: string): number {
    const { classOf, classes, next, out } = this;
    let st = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      st = c < 128 ? next[st * classes + classOf[c]!]! : 0;
      if (out[st] !== undefined) return i + 1;
    }
    return -1;
  }

  /** Calls `found` with the runners of each keyword occurrence in `s` (state by state, so repeats included). */
  each(s: string, found: (runners: Runner[]) => void): void {
    const { classOf, classes, next, out } = this;
    let st = 0;
    let last: Runner[] | undefined;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      st = c < 128 ? next[st * classes + classOf[c]!]! : 0;
      const o = out[st];
      if (o !== undefined && o !== last) {
        found(o);
        last = o;
      }
    }
  }
}

function merge(ranges: TextRange[]): TextRange[] {
  if (ranges.length <= 1) return ranges;
  ranges.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: TextRange[] = [ranges[0]!];
  for (let i = 1; i < ranges.length; i++) {
    const last = out[out.length - 1]!;
    const s = ranges[i]!;
    if (s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push(s);
  }
  return out;
}

/**
 * `s` with each secret value replaced by [REDACTED] (what precedes and follows it is kept); values
 * long enough to recognize elsewhere are added to `found`.
 */
export function redactText(s: string, found?: Set<string>): string {
  if (!maySecret(s)) return s;
  const ranges = findSecrets(s);
  if (ranges.length === 0) return s;
  let out = '';
  let at = 0;
  for (const { start, end } of ranges) {
    const value = s.slice(start, end);
    if (found && value.length >= MIN_PROPAGATED) found.add(value);
    out += s.slice(at, start) + REDACTED;
    at = end;
  }
  return out + s.slice(at);
}

/** Replaces every occurrence of a known secret value. */
export function redactKnown(s: string, values: ReadonlySet<string>): string {
  let out = s;
  for (const v of values) if (out.includes(v)) out = out.split(v).join(REDACTED);
  return out;
}

/** Both steps, for one string on its own. */
export function redactString(s: string, knownValues?: ReadonlySet<string>): string {
  const out = redactText(s);
  return knownValues && knownValues.size > 0 ? redactKnown(out, knownValues) : out;
}
