#!/usr/bin/env node
// Derives src/redact/gitleaks-rules.ts from gitleaks' published rule set, config/gitleaks.toml (MIT).
// Run by hand when the source is updated:
//   git -C <gitleaks clone> show <commit>:config/gitleaks.toml > /tmp/gitleaks.toml
//   node scripts/make-secret-rules.js /tmp/gitleaks.toml <commit>
// gitleaks' regexes are Go RE2; this script rewrites them once into JavaScript RegExp source (inline
// case flags become explicit case classes, POSIX classes and \z become their JavaScript forms), so
// Beacon compiles them as they are at run time and no conversion runs on the hot path.
'use strict';
const { createHash } = require('node:crypto');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { parse } = require('smol-toml');

const [src, commit] = process.argv.slice(2);
if (!src || !commit) {
  console.error('usage: make-secret-rules.js <gitleaks.toml> <commit>');
  process.exit(2);
}

// Rules Beacon does not take, and why (each is covered elsewhere or cannot apply to a string):
const SKIPPED = {
  'generic-api-key': 'Beacon redacts by key name (src/redact/names.ts), with fewer misses on JSON/YAML/.env forms',
  'curl-auth-user': 'Beacon redacts `curl -u user:pass` with its own CLI-flag rule (unbounded .* scans are costly on long strings)',
  'curl-auth-header': 'Beacon redacts every Authorization header, curl or not',
};

// Keywords gate which rules run on a string; these are narrowed (still implied by the rule's regex)
// because the published keyword is in most English text ("they", "key"…).
const KEYWORDS = {
  jwt: ['eyj'], // a JWT's header and payload are base64 of '{"…', which always begins 'eyJ'
};

const raw = readFileSync(src);
const doc = parse(raw.toString('utf8'));

const POSIX = { alnum: 'A-Za-z0-9', alpha: 'A-Za-z', digit: '0-9', lower: 'a-z', upper: 'A-Z', space: '\\s', xdigit: '0-9A-Fa-f', word: '\\w', punct: '!-\\/:-@\\[-`{-~' };

/** Go RE2 → JavaScript source with no flags: case-insensitive parts are spelled out as [aA] classes. */
function toJs(re) {
  let i = 0;
  let out = '';
  const stack = []; // case-insensitivity to restore when a group closes
  let ci = false;
  const letter = (c) => /[a-zA-Z]/.test(c);
  const both = (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`;
  while (i < re.length) {
    const c = re[i];
    if (c === '\\') {
      const n = re[i + 1];
      if (n === 'z') out += '$';
      else if (n === 'A') out += '^';
      else if (n === 'Q') throw new Error('\\Q unsupported');
      else out += c + n;
      i += 2;
      continue;
    }
    if (c === '[') {
      // character class: copy, expanding POSIX names and, when case-insensitive, letter ranges
      let j = i + 1;
      let body = '';
      let neg = '';
      if (re[j] === '^') { neg = '^'; j++; }
      if (re[j] === ']') { body += '\\]'; j++; }
      const extra = [];
      while (j < re.length && re[j] !== ']') {
        if (re[j] === '\\') { body += re[j] + re[j + 1]; j += 2; continue; }
        if (re[j] === '[' && re[j + 1] === ':') {
          const end = re.indexOf(':]', j);
          const name = re.slice(j + 2, end);
          if (!POSIX[name]) throw new Error(`POSIX class ${name}`);
          body += POSIX[name];
          j = end + 2;
          continue;
        }
        if (re[j] === '[') { body += '\\['; j++; continue; }
        if (ci && letter(re[j]) && re[j + 1] === '-' && re[j + 2] && letter(re[j + 2])) {
          const a = re[j], b = re[j + 2];
          body += `${a}-${b}`;
          const swap = (x) => (x === x.toLowerCase() ? x.toUpperCase() : x.toLowerCase());
          extra.push(`${swap(a)}-${swap(b)}`);
          j += 3;
          continue;
        }
        if (ci && letter(re[j]) && re[j + 1] !== '-') {
          const o = re[j] === re[j].toLowerCase() ? re[j].toUpperCase() : re[j].toLowerCase();
          body += re[j];
          extra.push(o);
          j++;
          continue;
        }
        body += re[j];
        j++;
      }
      out += `[${neg}${extra.join('')}${body}]`; // other-case letters first: never after a trailing '-'
      i = j + 1;
      continue;
    }
    if (c === '(') {
      const rest = re.slice(i);
      let m;
      if ((m = /^\(\?([ims-]+)\)/.exec(rest))) {
        // flags for the rest of the current group
        const f = m[1];
        if (/s/.test(f.split('-')[0])) throw new Error('(?s) unsupported');
        if (f.split('-')[0].includes('i')) ci = true;
        if ((f.split('-')[1] || '').includes('i')) ci = false;
        i += m[0].length;
        continue;
      }
      if ((m = /^\(\?([ims]*)(?:-([ims]*))?:/.exec(rest))) {
        stack.push(ci);
        const on = m[1], off = m[2] || '';
        if (on.includes('s')) {
          // (?s:.) — a dot that matches newlines
          if (rest.startsWith('(?s:.)')) { out += '[\\s\\S]'; stack.pop(); i += 6; continue; }
          throw new Error('(?s:…) unsupported');
        }
        if (on.includes('i')) ci = true;
        if (off.includes('i')) ci = false;
        out += '(?:';
        i += m[0].length;
        continue;
      }
      if ((m = /^\(\?P<(\w+)>/.exec(rest))) {
        stack.push(ci);
        out += `(?<${m[1]}>`;
        i += m[0].length;
        continue;
      }
      stack.push(ci);
      out += '(';
      i++;
      continue;
    }
    if (c === ')') {
      ci = stack.pop();
      out += ')';
      i++;
      continue;
    }
    out += ci && letter(c) ? both(c) : c;
    i++;
  }
  return out;
}

/**
 * gitleaks' keyword-assignment rules begin `[\w.-]{0,50}?` (sometimes twice, nested): a lazy prefix
 * that can match nothing, so it never changes which secret a rule finds — but a backtracking engine
 * tries it at every position, which costs seconds on a long line (RE2 does not backtrack). Removed.
 */
function unanchorPrefix(source) {
  const PREFIX = '[\\w.-]{0,50}?';
  let out = source;
  for (;;) {
    if (out.startsWith(PREFIX)) out = out.slice(PREFIX.length);
    else if (out.startsWith(`(?:${PREFIX}`)) out = `(?:${out.slice(3 + PREFIX.length)}`;
    else return out;
  }
}

const rules = [];
const skipped = [];
for (const r of doc.rules) {
  if (SKIPPED[r.id]) { skipped.push({ id: r.id, why: SKIPPED[r.id] }); continue; }
  if (!r.regex) { skipped.push({ id: r.id, why: 'matches file paths only' }); continue; }
  if (r.path) { skipped.push({ id: r.id, why: 'applies to one file type only (Beacon sees strings, not files)' }); continue; }
  let source;
  try {
    source = unanchorPrefix(toJs(r.regex));
    new RegExp(source, 'g'); // eslint-disable-line no-new
  } catch (e) {
    skipped.push({ id: r.id, why: `regex not convertible: ${e.message}` });
    continue;
  }
  const allow = [];
  for (const a of r.allowlists || []) {
    if (a.paths) continue; // no path to test against: a path allowlist never applies (an AND with paths never holds)
    const regexes = (a.regexes || []).map(toJs);
    allow.push({ target: a.regexTarget || 'secret', ...(regexes.length ? { regexes } : {}), ...(a.stopwords ? { stopwords: a.stopwords } : {}) });
  }
  rules.push({
    id: r.id,
    source,
    keywords: KEYWORDS[r.id] || (r.keywords || []).map((k) => k.toLowerCase()),
    ...(r.secretGroup ? { secretGroup: r.secretGroup } : {}),
    ...(r.entropy ? { entropy: r.entropy } : {}),
    ...(allow.length ? { allow } : {}),
  });
}
const noKeywords = rules.filter((r) => r.keywords.length === 0).map((r) => r.id);
if (noKeywords.length) throw new Error(`rules without keywords (every string would run them): ${noKeywords.join(', ')}`);

const header = `// GENERATED by scripts/make-secret-rules.js — do not edit. Regenerate from a newer gitleaks instead.
// Source: gitleaks/gitleaks ${commit}, config/gitleaks.toml (sha256 ${createHash('sha256').update(raw).digest('hex')}).
// License of the rules: MIT, Copyright (c) 2019 Zachary Rice. Regexes rewritten from Go RE2 to JavaScript.
`;
const body = `import type { RuleSet } from './rule-set';

export const GITLEAKS: RuleSet = ${JSON.stringify(
  {
    source: { repository: 'gitleaks/gitleaks', path: 'config/gitleaks.toml', commit, license: 'MIT, Copyright (c) 2019 Zachary Rice' },
    globalAllow: (doc.allowlist?.regexes || []).map(toJs),
    rules,
    skipped,
  },
  null,
  1,
)};
`;
writeFileSync(join(__dirname, '..', 'src', 'redact', 'gitleaks-rules.ts'), header + body);
console.log(`${rules.length} rules written, ${skipped.length} skipped`);
