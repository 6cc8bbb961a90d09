/**
 * A published secret rule set kept as data (today: gitleaks' `config/gitleaks.toml`, converted by
 * `scripts/make-secret-rules.js`), and the matcher that runs it the way gitleaks does: a rule runs
 * only on a string holding one of its keywords, its secret is the capture group it names (else the
 * first non-empty group, else the whole match), and a secret below the rule's Shannon entropy or
 * matched by an allowlist is no finding.
 */
export interface AllowSpec {
  target: 'secret' | 'match' | 'line';
  regexes?: string[];
  stopwords?: string[];
}

export interface RuleSpec {
  id: string;
  /** JavaScript RegExp source, no flags */
  source: string;
  /** lower-case; the rule runs only on strings containing one */
  keywords: string[];
  secretGroup?: number;
  entropy?: number;
  allow?: AllowSpec[];
}

export interface RuleSet {
  source: { repository: string; path: string; commit: string; license: string };
  globalAllow: string[];
  rules: RuleSpec[];
  skipped: { id: string; why: string }[];
}

/** A secret's place in a string: [start, end). */
export interface TextRange {
  start: number;
  end: number;
}

interface Compiled {
  re: RegExp;
  allow: { target: AllowSpec['target']; regexes: RegExp[]; stopwords: string[] }[];
}

export class RuleMatcher {
  private readonly byId = new Map<string, RuleSpec>();
  private readonly compiled = new Map<string, Compiled>();
  private readonly globalAllow: RegExp[];

  constructor(private readonly set: RuleSet) {
    for (const r of set.rules) this.byId.set(r.id, r);
    this.globalAllow = set.globalAllow.map((s) => new RegExp(s));
  }

  /** keyword → the ids of the rules it gates */
  keywordRules(): Map<string, string[]> {
    const m = new Map<string, string[]>();
    for (const r of this.set.rules) for (const k of r.keywords) m.set(k, [...(m.get(k) ?? []), r.id]);
    return m;
  }

  /** Runs one rule over `s`, adding each secret it finds to `out`. */
  find(id: string, s: string, out: TextRange[]): void {
    const spec = this.byId.get(id)!;
    const c = this.compile(spec);
    c.re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = c.re.exec(s)) !== null) {
      if (m[0].length === 0) {
        c.re.lastIndex++;
        continue;
      }
      const idx = m.indices!;
      let g = spec.secretGroup ?? 0;
      if (!spec.secretGroup) for (let i = 1; i < m.length; i++) if (m[i]) { g = i; break; }
      const [start, end] = idx[g]!;
      const secret = s.slice(start, end);
      if (spec.entropy !== undefined && shannon(secret) < spec.entropy) continue;
      if (this.allowed(c, secret, m[0], s, m.index)) continue;
      out.push({ start, end });
    }
  }

  private allowed(c: Compiled, secret: string, match: string, s: string, at: number): boolean {
    for (const re of this.globalAllow) if (re.test(secret)) return true;
    for (const a of c.allow) {
      const target = a.target === 'secret' ? secret : a.target === 'match' ? match : lineAt(s, at);
      if (a.regexes.some((re) => re.test(target))) return true;
      if (a.stopwords.length > 0) {
        const lower = secret.toLowerCase();
        if (a.stopwords.some((w) => lower.includes(w))) return true;
      }
    }
    return false;
  }

  /** Compiled on first use: a hook process that meets no secret compiles none of the ~200 rules. */
  private compile(spec: RuleSpec): Compiled {
    let c = this.compiled.get(spec.id);
    if (!c) {
      c = {
        re: new RegExp(spec.source, 'gd'),
        allow: (spec.allow ?? []).map((a) => ({ target: a.target, regexes: (a.regexes ?? []).map((r) => new RegExp(r)), stopwords: a.stopwords ?? [] })),
      };
      this.compiled.set(spec.id, c);
    }
    return c;
  }
}

function lineAt(s: string, at: number): string {
  const from = s.lastIndexOf('\n', at) + 1;
  const to = s.indexOf('\n', at);
  return s.slice(from, to < 0 ? s.length : to);
}

/** Shannon entropy in bits per character, as gitleaks computes it. */
export function shannon(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of s) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    h -= p * Math.log2(p);
  }
  return h;
}

/** [A-Za-z0-9/+], by char code: the alphabet of a bare base64 secret. */
const BASE64_CHAR = new Uint8Array(128);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+') BASE64_CHAR[ch.charCodeAt(0)] = 1;
const isBase64Char = (c: number) => c < 128 && BASE64_CHAR[c] === 1;

/**
 * Does `s` hold `min` or more [A-Za-z0-9/+] characters in a row? What a regex for a bare base64
 * secret of that length needs before it can match: checking it first skips that regex on prose
 * and code (measured: ~10× faster than the regex's own scan). It looks at every `min`-th character
 * and walks back only from one of the alphabet, so a string of short words costs ~length/min reads.
 */
export function hasBase64Run(s: string, min: number): boolean {
  for (let i = min - 1; i < s.length; ) {
    if (!isBase64Char(s.charCodeAt(i))) {
      i += min;
      continue;
    }
    let from = i; // the run ending at i starts at `from`
    while (from > 0 && i - from + 1 < min && isBase64Char(s.charCodeAt(from - 1))) from--;
    if (i - from + 1 >= min) return true;
    i = from - 1 + min; // a run of `min` must start after from - 1 (not of the alphabet), so it ends there or later
  }
  return false;
}
