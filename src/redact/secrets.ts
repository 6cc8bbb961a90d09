/**
 * Secret redaction, applied to every string before anything is written. The first four patterns are
 * the Go Beacon's (so both redact alike); the rest cover credentials that appear in agent command
 * lines in practice (GitHub, AWS, Slack tokens, PEM private keys).
 */
const ASSIGNMENT_PATTERNS: RegExp[] = [
  /authorization\s*[:=]\s*bearer\s+[^"',\s]+/gi,
  /(?:api[_-]?key|token|secret|password|authorization)\s*[:=]\s*["']?[^"',\s]+/gi,
];
const WHOLE_PATTERNS: RegExp[] = [
  /bearer\s+[a-z0-9._~+/=-]+/gi,
  /sk-[A-Za-z0-9_-]{20,}/g,
  /gh[pousr]_[A-Za-z0-9]{30,}/g,
  /github_pat_[A-Za-z0-9_]{30,}/g,
  /AKIA[0-9A-Z]{16}/g,
  /xox[abposr]-[A-Za-z0-9-]{10,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];
/** Cheap pre-check: most strings contain none of these words, and skip all the patterns. */
const MAYBE_SECRET = /authorization|api[_-]?key|token|secret|password|bearer|sk-|gh[pousr]_|github_pat_|AKIA|xox|PRIVATE KEY/i;

export const REDACTED = '[REDACTED]';

export function maySecret(s: string): boolean {
  return MAYBE_SECRET.test(s);
}

/** Values assigned in a secret pattern that are long enough to be recognized elsewhere in the event. */
export function collectSecretValues(s: string, into: Set<string>): void {
  if (!MAYBE_SECRET.test(s)) return;
  for (const re of ASSIGNMENT_PATTERNS) {
    re.lastIndex = 0;
    for (const m of s.matchAll(re)) {
      const value = assignedValue(m[0]);
      if (value.length >= 8) into.add(value);
    }
  }
}

function assignedValue(match: string): string {
  const cut = splitIndex(match);
  let v = cut < 0 ? match : match.slice(cut + 1);
  v = v.trim().replace(/^["']/, '');
  const bearer = /^bearer\s+/i.exec(v);
  return bearer ? v.slice(bearer[0].length) : v;
}

/** The match keeps its key up to the first `=` (else `:`); the value becomes [REDACTED]. */
function splitIndex(match: string): number {
  const eq = match.indexOf('=');
  return eq >= 0 ? eq : match.indexOf(':');
}

export function redactString(s: string, knownValues?: ReadonlySet<string>): string {
  let out = s;
  if (MAYBE_SECRET.test(out)) {
    for (const re of ASSIGNMENT_PATTERNS) {
      out = out.replace(re, (m) => {
        const cut = splitIndex(m);
        return cut < 0 ? REDACTED : m.slice(0, cut + 1) + REDACTED;
      });
    }
    for (const re of WHOLE_PATTERNS) out = out.replace(re, REDACTED);
  }
  if (knownValues && knownValues.size > 0) {
    for (const v of knownValues) if (out.includes(v)) out = out.split(v).join(REDACTED);
  }
  return out;
}
