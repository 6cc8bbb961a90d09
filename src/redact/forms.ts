/**
 * Beacon's own detectors, for what a token-format rule set cannot see: secret-named assignments in
 * JSON/YAML/INI/.env/shell/code text (`"password": "…"`, `password: …`, `API_KEY=…`), CLI flags
 * (`--password v`, `curl -u user:pass`, `mysql -pSECRET`), URL userinfo, `Authorization` of every
 * scheme, and the Go Beacon's patterns (`sk-…`, bearer tokens) so both redact at least alike.
 * Each finds the secret *value* only: what precedes and follows it is kept.
 */
import { AssignmentScan } from './assignment';
import { COMMAND_DETECTORS } from './command-forms';
import { judgeName, secretValue, type NameVerdict } from './names';
import { judgeFlag, pairValue } from './pairs';
import { PROMPT_DETECTOR } from './prompts';
import { hasBase64Run, shannon, type TextRange } from './rule-set';

export interface Detector {
  id: string;
  /** where it comes from, for the README's list */
  source: 'beacon' | 'go-beacon';
  /** lower-case; the detector runs only on strings containing one (none: on every string of 40 characters or more) */
  keywords: string[];
  find(s: string, out: TextRange[]): void;
}

/** Stems of the secret names `names.ts` recognizes: a name can only be secret if it holds one. */
// Every secret name of names.ts holds one of these (the detectors run only on a string that does):
// one-time codes, PINs and request signatures too (`otp: 123456`, `pin=4821`, `sig=…`, `mfa_code=…`),
// which free text with no other stem had stored in the clear.
const NAME_STEMS = ['pass', 'pwd', 'pw', 'secret', 'token', 'key', 'auth', 'cred', 'cookie', 'signature', 'sig', 'otp', 'pin', 'private', 'mfa', '2fa', 'verification', 'recovery', 'backup', 'security', 'sms'];

// `--name value`, `--name=value`, `-name value`
const FLAG = /(?<![\w-])--?([A-Za-z][\w-]{1,40})(=|[ \t]+)/g;
const UNQUOTED = /[^\s"'`,;&|<>(){}[\]]+/y;
const SCHEME = /^(?:bearer|basic|token|digest|negotiate|ntlm|apikey|api-key|sso-key|hmac|key|aws4-hmac-sha256|gosign|splunk)$/i;
const NOT_A_VALUE = /^(?:true|false|null|none|nil|undefined|\[REDACTED\]|\$\{?\w+\}?|\|[-+]?|>[-+]?)$/i;

/** The value after an assignment operator at `p`, as [start, end), or undefined. */
function valueAt(s: string, p: number, lineMode: boolean): TextRange | undefined {
  let start = p;
  let end: number;
  const c = s[p];
  if (c === '\\' && (s[p + 1] === '"' || s[p + 1] === "'")) {
    start = p + 2;
    end = s.indexOf(`\\${s[p + 1]}`, start);
    if (end < 0 || end - start > MAX_VALUE) end = lineEnd(s, start);
  } else if (c === '"' || c === "'" || c === '`') {
    start = p + 1;
    end = start;
    const stop = Math.min(s.length, start + MAX_VALUE);
    while (end < stop && s[end] !== c && s[end] !== '\n') end += s[end] === '\\' && c === '"' ? 2 : 1;
    end = Math.min(end, stop);
  } else if (lineMode) {
    end = lineEnd(s, p);
    const hash = s.slice(p, end).search(/\s#/);
    if (hash >= 0) end = p + hash;
    while (end > p && /\s/.test(s[end - 1]!)) end--;
  } else {
    end = unquotedEnd(s, p);
  }
  if (end <= start) return undefined;
  // `Authorization: Bearer abc` — the scheme is kept, the credentials go
  const word = /^[A-Za-z][\w-]*/.exec(s.slice(start, Math.min(end, start + 20)));
  if (word && SCHEME.test(word[0])) {
    let q = start + word[0].length;
    if (q < s.length && (s[q] === ' ' || s[q] === '\t')) {
      while (s[q] === ' ' || s[q] === '\t') q++;
      if (q >= end) {
        // an unquoted scheme: the credentials are the next token (Digest: the rest of the line)
        if (/^digest$/i.test(word[0]) || /^aws4/i.test(word[0])) end = lineEnd(s, q);
        else {
          end = unquotedEnd(s, q);
          if (end <= q) return undefined;
        }
      }
      start = q;
    }
  }
  return end > start ? { start, end } : undefined;
}

/** A value is at most this long: longer secrets (PEM blocks) have their own rules, and every scan stays bounded. */
const MAX_VALUE = 1024;

/**
 * The last unquoted run scanned. Every value that starts inside one run ends where it ends: in
 * `pw:pw:pw:…` each `pw:` starts a value in the same run, and scanning it again from each was
 * quadratic (64 KB: ~3 s). The run is kept whole, not cut at MAX_VALUE: a longer token's tail would
 * be stored.
 */
let lastRun = { s: '', start: 0, end: 0 };
function unquotedEnd(s: string, p: number): number {
  if (p >= lastRun.start && p < lastRun.end && lastRun.s === s) return lastRun.end;
  UNQUOTED.lastIndex = p;
  const m = UNQUOTED.exec(s);
  if (!m) return p;
  lastRun = { s, start: p, end: p + m[0].length };
  return lastRun.end;
}

function lineEnd(s: string, from: number): number {
  let end = from;
  const stop = Math.min(s.length, from + MAX_VALUE);
  while (end < stop && s[end] !== '\n') end++;
  return end > from && s[end - 1] === '\r' ? end - 1 : end;
}

/** Only whitespace, a diff marker, a YAML list dash or `export` before `at` on its line: a YAML/INI/.env line. */
function startsLine(s: string, at: number): boolean {
  let from = at;
  // at most 40 characters back: a prefix that long is no line start (and a line with no newline stays linear)
  while (from > 0 && at - from <= 40 && s[from - 1] !== '\n') from--;
  if (from > 0 && s[from - 1] !== '\n') return false;
  return /^[ \t]*[+-]?[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?$/.test(s.slice(from, at));
}

/** Adds `range` when it holds a value its name makes secret; returns where a later search may resume. */
function keep(s: string, range: TextRange | undefined, verdict: NameVerdict, out: TextRange[]): number {
  if (!range) return 0;
  const value = s.slice(range.start, range.end);
  if (NOT_A_VALUE.test(value) || !secretValue(verdict, value)) return 0;
  out.push(range);
  return range.end;
}

const assignment: Detector = {
  id: 'secret-named-assignment',
  source: 'beacon',
  keywords: NAME_STEMS,
  find(s, out) {
    const scan = new AssignmentScan(s);
    let from = 0;
    let m: RegExpExecArray | null;
    while ((m = scan.next(from)) !== null) {
      from = m.index + m[0].length;
      const verdict = judgeName(m[2]!);
      if (verdict === 'plain') continue;
      const op = m[3]!;
      const at = m.index + m[1]!.length;
      // YAML `key: value` and INI `key = value` lines run to the end of the line; `KEY=v cmd` does not
      const spaced = /[ \t]$/.test(m[0].slice(0, m[0].indexOf(op)));
      const lineMode = m[1] === '' && (op === ':' || (op === '=' && spaced)) && startsLine(s, at);
      // what the value holds is redacted with it: searching it again only costs (`pw:pw:pw:…`)
      const resume = keep(s, valueAt(s, m.index + m[0].length, lineMode), verdict, out);
      if (resume > from) from = resume;
    }
  },
};

const flag: Detector = {
  id: 'secret-named-cli-flag',
  source: 'beacon',
  keywords: NAME_STEMS,
  find(s, out) {
    FLAG.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = FLAG.exec(s)) !== null) {
      const verdict = judgeFlag(m[1]!);
      if (verdict === 'plain') continue;
      const p = m.index + m[0].length;
      if (s[p] === '-') continue;
      const resume = keep(s, valueAt(s, p, false), verdict, out);
      if (resume > FLAG.lastIndex) FLAG.lastIndex = resume;
    }
  },
};

// `"name": "DB_PASSWORD", "value": …` (JSON, also \"-escaped) and `name: DB_PASSWORD` then `value: …` (YAML)
// (the patterns begin with a word, not a quote, so that the engine skips the many quotes of code at once; the
// opening quote is checked after, by quotedBefore)
const NAMED_VALUE_JSON = /(?:name|key)(\\?["'])[ \t]*:[ \t]*(\\?["'])([^"'\\\n]{1,100})\2\s*,\s*(\\?["'])value\4[ \t]*:[ \t]*/gi;
const NAMED_VALUE_YAML = /\b(?:name|key):[ \t]*(["']?)([A-Za-z_][\w.-]{0,100})\1[ \t]*\r?\n[ \t]*value:[ \t]*/gi;
// the same entry value first (JSON keeps no key order): `"value": "…", "name": "DB_PASSWORD"`; the
// value is read by valueAt, then NAME_AFTER must follow its closing quote at once
const VALUE_THEN_NAME = /value(\\?["'])[ \t]*:[ \t]*(?=\\?["'])/gi;
const NAME_AFTER = /\\?["']\s{0,40},\s{0,40}(\\?["'])(?:name|key)\1[ \t]*:[ \t]*(\\?["'])([^"'\\\n]{1,100})\2/iy;
// `["Authorization", "token …"]`, `("password", "…")`: a two-item list, a name then its value
const LIST_PAIR = /[[(]\s*(\\?["'])([A-Za-z][\w.-]{0,80})\1\s*,\s*(?=\\?["'])/g;
// `"--passphrase", "…"`: a secret flag and its value as two argv items
const ARGV_PAIR = /--?([A-Za-z][\w-]{1,40})(\\?["'])\s*,\s*(?=\\?["'])/g;

/** A quote just before `at`: the match that starts there is a quoted word. */
const quotedBefore = (s: string, at: number) => s[at - 1] === '"' || s[at - 1] === "'";

/** The end of a list at `at` (past the value's closing quote): `]` or `)` after optional spaces. */
function closesList(s: string, at: number): boolean {
  let q = at;
  if (s[q] === '\\') q++;
  if (s[q] === '"' || s[q] === "'") q++;
  while (q < s.length && /\s/.test(s[q]!)) q++;
  return s[q] === ']' || s[q] === ')';
}

/** What the name/value patterns need (a `value` word and a `:`): without it, none can match (a test holds it). */
export const mayHoldNamedValue = (s: string) => s.includes(':') && /value/i.test(s);
/** What the list and argv pairs need (a `,` between two items and a quote): without it, neither can match. */
export const mayHoldPair = (s: string) => s.includes(',') && (s.includes('"') || s.includes("'"));
/** The patterns those gates stand in front of (for that test). */
export const NAMED_PAIR_PATTERNS = { namedValue: [NAMED_VALUE_JSON, NAMED_VALUE_YAML, VALUE_THEN_NAME], pair: [LIST_PAIR, ARGV_PAIR] };

/** Secrets named by the data beside them rather than by their key (issue 29 item 9; parsed JSON: pairs.ts). */
const namedPair: Detector = {
  id: 'secret-named-pair',
  source: 'beacon',
  keywords: NAME_STEMS,
  find(s, out) {
    const hasValue = mayHoldNamedValue(s);
    const hasPair = mayHoldPair(s);
    if (!hasValue && !hasPair) return;
    let m: RegExpExecArray | null;
    for (const [re, nameGroup, lineMode] of hasValue ? ([[NAMED_VALUE_JSON, 3, false], [NAMED_VALUE_YAML, 2, true]] as const) : []) {
      re.lastIndex = 0;
      while ((m = re.exec(s)) !== null) {
        if (!lineMode && !quotedBefore(s, m.index)) continue;
        const verdict = judgeName(m[nameGroup]!);
        if (verdict !== 'plain') keep(s, valueAt(s, m.index + m[0].length, lineMode), verdict, out);
      }
    }
    VALUE_THEN_NAME.lastIndex = 0;
    while (hasValue && (m = VALUE_THEN_NAME.exec(s)) !== null) {
      if (!quotedBefore(s, m.index)) continue;
      const range = valueAt(s, m.index + m[0].length, false);
      if (!range) continue;
      NAME_AFTER.lastIndex = range.end;
      const name = NAME_AFTER.exec(s);
      if (name) keep(s, range, judgeName(name[3]!), out);
    }
    if (!hasPair) return;
    LIST_PAIR.lastIndex = 0;
    while ((m = LIST_PAIR.exec(s)) !== null) {
      const verdict = judgeName(m[2]!);
      if (verdict === 'plain') continue;
      const range = valueAt(s, m.index + m[0].length, false);
      if (range && closesList(s, range.end) && pairValue(verdict, s.slice(range.start, range.end))) keep(s, range, verdict, out);
    }
    ARGV_PAIR.lastIndex = 0;
    while ((m = ARGV_PAIR.exec(s)) !== null) {
      if (!quotedBefore(s, m.index)) continue;
      const verdict = judgeFlag(m[1]!);
      const p = m.index + m[0].length;
      if (verdict !== 'plain' && s[p + (s[p] === '\\' ? 2 : 1)] !== '-') keep(s, valueAt(s, p, false), verdict, out);
    }
  },
};

/** A regex detector: the secret is `group` (0: the whole match). */
function pattern(id: string, source: Detector['source'], keywords: string[], re: RegExp, group = 0, accept?: (v: string) => boolean): Detector {
  return {
    id,
    source,
    keywords,
    find(s, out) {
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(s)) !== null) {
        const [start, end] = m.indices![group] ?? [0, 0];
        if (end > start && (!accept || accept(s.slice(start, end)))) out.push({ start, end });
      }
    },
  };
}

/** `d` run only on strings `mayMatch` lets through (a cheap test its regex's matches all pass). */
function gated(d: Detector, mayMatch: (s: string) => boolean): Detector {
  return { ...d, find: (s, out) => (mayMatch(s) ? d.find(s, out) : undefined) };
}

const TOKEN_LIKE = (v: string) => /[0-9._~+/=-]/.test(v);

/** `aws configure set aws_secret_access_key V`, `npm config set NAME V`: a secret name, then its value. */
const CONFIG_SET = /\bconfig(?:ure)?[ \t]+set[ \t]+([\w./:-]{3,100})[ \t]+/g;
const configSet: Detector = {
  id: 'config-set-secret',
  source: 'beacon',
  keywords: ['config'],
  find(s, out) {
    CONFIG_SET.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = CONFIG_SET.exec(s)) !== null) {
      const verdict = judgeName(m[1]!);
      if (verdict !== 'plain') keep(s, valueAt(s, m.index + m[0].length, false), verdict, out);
    }
  },
};

/**
 * A .netrc entry: `machine HOST [login L] [account A] password P`, on one line or several. The
 * tokens must follow one another, so prose with "machine", "login" and "password" is no entry.
 */
const NETRC = /(?:\bmachine[ \t\r\n]+[^\s]{1,255}|\bdefault)(?:[ \t\r\n]+(?:login|account|port)[ \t\r\n]+[^\s]{1,255}){0,3}[ \t\r\n]+password[ \t\r\n]+([^\s]{1,1024})/dg;

/**
 * A bare AWS secret access key: 40 characters of base64 (30 random bytes) standing alone, with
 * upper case, lower case and a digit, and the entropy of random text. No keyword announces it, so
 * this detector runs on every string of 40 characters or more (secrets.ts, UNGATED): one regex
 * pass whose lookbehind fails at once inside longer runs (base64 images, PEM bodies).
 */
const BARE_AWS_SECRET = /(?<![A-Za-z0-9/+_-])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-])/dg;
const MIN_BARE_ENTROPY = 4.2;
function awsSecretLike(v: string): boolean {
  return /[A-Z]/.test(v) && /[a-z]/.test(v) && /\d/.test(v) && !v.includes('//') && shannon(v) >= MIN_BARE_ENTROPY;
}

/**
 * `scheme://user:PASSWORD@host`: the password is everything up to the last `@` that a host follows
 * (a host name, an IPv4 or `[IPv6]` address, an optional port, then the end of the authority), so a
 * password may hold `:`, `/`, `?`, `#` and `@` unencoded (issue 29 item 9: `/` and `+` in a base64
 * password). The authority may end a sentence (`…@git.example.com.`, `…@db.internal:`): a `.` or `:`
 * after the host ends it when no host or port character follows. The host is bounded (a DNS name is
 * at most 253 characters), so each `@` costs at most one host's length.
 */
const URL_PASSWORD = /\b[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/[^\s/?#@"'<>:]*:([^\s"'<>]{1,256})@(?=(?:\[[0-9A-Fa-f:.]{2,45}(?:%[\w.~%-]{1,20})?\]|[A-Za-z0-9._~-]{0,252}[A-Za-z0-9])(?::\d{1,5})?(?![\w~%@-]|[.:][\w~%@.:-]))/dg;
/** `https://host:8443/pkg@1.2.3`: a port and a path with an `@` in it, not `user:password@` */
const PORT_THEN_PATH = /^\d{1,5}(?:[/?#]|$)/;

export const DETECTORS: readonly Detector[] = [
  assignment,
  flag,
  namedPair,
  // URL userinfo: scheme://user:password@host (the password), scheme://TOKEN@host (a token-like user)
  configSet,
  // a password may hold `:`, `/`, `#`, `@`, `%`, `^` unencoded: it runs to the last `@` before a host
  pattern('url-userinfo-password', 'beacon', ['://'], URL_PASSWORD, 1, (v) => !PORT_THEN_PATH.test(v)),
  pattern('url-userinfo-token', 'beacon', ['://'], /\b[A-Za-z][A-Za-z0-9+.-]{0,30}:\/\/([^\s/?#@"'<>:]{16,})@/dg, 1, (v) => /\d/.test(v)),
  pattern('curl-user', 'beacon', ['curl'], /\bcurl\b[^\n;|&]{0,300}?[ \t](?:-u[ \t]*|-U[ \t]*|--user[= \t][ \t]*|--proxy-user[= \t][ \t]*)(["']?)[^\s"':]*:([^\s"']+)\1/dg, 2),
  pattern('mysql-p', 'beacon', ['mysql', 'mariadb'], /\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n;|&]{0,300}?[ \t]-p(["']?)([^\s"']+)\1/dg, 2),
  pattern('sshpass-p', 'beacon', ['sshpass'], /\bsshpass\b[^\n;|&]{0,300}?[ \t]-p[ \t]*(["']?)([^\s"']+)\1/dg, 2),
  // the first `login` only: trying each of the line's (`docker login login …`) multiplied the two 300-character runs
  pattern('docker-login-p', 'beacon', ['docker'], /\bdocker\b(?:(?!\blogin\b)[^\n;|&]){0,300}\blogin\b[^\n;|&]{0,300}?[ \t]-p[ \t]+(["']?)([^\s"']+)\1/dg, 2),
  pattern('pem-private-key', 'beacon', ['-----begin'], /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|$)/dg),
  pattern('bearer-token', 'go-beacon', ['bearer'], /\bbearer[ \t]+([A-Za-z0-9._~+/=-]{8,})/dgi, 1, TOKEN_LIKE),
  pattern('sk-key', 'go-beacon', ['sk-'], /\bsk-[A-Za-z0-9_-]{20,}/dg),
  pattern('github-token', 'beacon', ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/dg),
  pattern('aws-access-key-id', 'beacon', ['akia', 'asia'], /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/dg),
  pattern('slack-token', 'beacon', ['xox'], /\bxox[abposr]-[A-Za-z0-9-]{10,}/dg),
  pattern('netrc-password', 'beacon', ['machine', 'default'], NETRC, 1, (v) => !NOT_A_VALUE.test(v)),
  gated(pattern('aws-secret-access-key', 'beacon', [], BARE_AWS_SECRET, 0, awsSecretLike), (s) => hasBase64Run(s, 40)),
  PROMPT_DETECTOR,
  ...COMMAND_DETECTORS,
];
