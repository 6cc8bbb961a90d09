/**
 * The cheap tests redaction runs before a costly regex (issue 31 item 4's import speed) may skip it
 * only where it could not have matched: each is checked against the regex it stands in front of.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ASSIGNMENT, AssignmentScan } from '../../src/redact/assignment';
import { mayHoldNamedValue, mayHoldPair, NAMED_PAIR_PATTERNS } from '../../src/redact/forms';
import { MARK, truncateString } from '../../src/redact/limits';
import { namedValueKey } from '../../src/redact/pairs';
import { PROMPT_DETECTOR } from '../../src/redact/prompts';
import { hasBase64Run } from '../../src/redact/rule-set';
import { redactText } from '../../src/redact/secrets';
import { NEAR_MISSES, SECRET_SHAPES } from '../helpers/secret-corpus';
import { rng } from '../helpers/rng';


describe('redaction gates', () => {
  it('hasBase64Run says what /[A-Za-z0-9/+]{n}/ says, on runs of every length and what breaks them', () => {
    const next = rng(20261202);
    const inRun = 'aZ9/+';
    const breakers = ' _-.\n=é\u{1F600}';
    for (let t = 0; t < 20000; t++) {
      const dense = next();
      let s = '';
      for (let i = Math.floor(next() * 130); i > 0; i--) s += next() < dense ? inRun[Math.floor(next() * inRun.length)] : breakers[Math.floor(next() * breakers.length)];
      for (const n of [1, 2, 7, 40]) assert.equal(hasBase64Run(s, n), new RegExp(`[A-Za-z0-9/+]{${n}}`).test(s), `${JSON.stringify(s)}, ${n}`);
    }
  });

  it('a bare AWS secret key is still found after prose, at a string end, and beside words of 39 characters', () => {
    const key = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const word39 = 'a'.repeat(39);
    for (const s of [`${'the quick brown fox '.repeat(20)}${key}`, key, `${word39} ${key} ${word39}`, `x=${key}.`]) {
      assert.ok(!redactText(s).includes(key), s);
    }
    assert.equal(redactText(`${word39} ${word39}`), `${word39} ${word39}`);
  });

  it('a named pair with a "value" but no comma, and a list pair with a comma but no "value", are both still redacted', () => {
    assert.doesNotMatch(redactText('- name: DB_PASSWORD\n  value: hunter2-Secret-9'), /hunter2/);
    assert.doesNotMatch(redactText('headers = [("Authorization", "token ghx_0a1b2c3d4e5f6a7b8c9d")]'), /0a1b2c3d4e5f/);
  });
  it('AssignmentScan finds what the assignment regex finds from every resume point: quotes, escapes, blanks, long names, operators in a row', () => {
    const next = rng(20261203);
    // the pieces a match is made of, what breaks one, and what the lookbehind refuses
    const pieces = ['token', 'api_key', 'pw', 'a-b', 'x.y', '$v', '_', 'Z9', 'n'.repeat(80), 'm'.repeat(83), ' '.repeat(33), 'lorem ipsum, dolor sit amet consectetur ', '"', "'", '`', '\\"', '\\', ']', '[', ' ', '\t', '  ', ':', '=', ':=', '=>', '==', '::', ',', '\n', '{', '-', '.', 'é', '\u{1F600}', '9'];
    const all = (s: string, resumes: number[]) => {
      const re = new RegExp(ASSIGNMENT.source, 'g');
      const a: string[] = [];
      const b: string[] = [];
      let m: RegExpExecArray | null;
      let from = 0;
      for (let i = 0; (m = (re.lastIndex = from, re.exec(s))) !== null; i++) {
        a.push(`${m.index}:${JSON.stringify([...m])}`);
        from = Math.max(m.index + m[0].length, resumes[i] ?? 0);
      }
      from = 0;
      const scan = new AssignmentScan(s);
      for (let i = 0; (m = scan.next(from)) !== null; i++) {
        b.push(`${m.index}:${JSON.stringify([...m])}`);
        from = Math.max(m.index + m[0].length, resumes[i] ?? 0);
      }
      assert.deepEqual(b, a, JSON.stringify(s));
      return a.length;
    };
    let matches = 0;
    for (let t = 0; t < 20000; t++) {
      let s = '';
      for (let n = Math.floor(next() * 24); n >= 0; n--) s += pieces[Math.floor(next() * pieces.length)];
      // a detector resumes past a value it redacted: jump ahead now and then
      const resumes = Array.from({ length: 8 }, () => (next() < 0.3 ? Math.floor(next() * (s.length + 2)) : 0));
      matches += all(s, resumes);
      // and from every start
      for (let from = 0; from <= s.length && t % 10 === 0; from++) {
        const re = new RegExp(ASSIGNMENT.source, 'g');
        re.lastIndex = from;
        assert.deepEqual(JSON.stringify(new AssignmentScan(s).next(from)), JSON.stringify(re.exec(s)), `${JSON.stringify(s)} from ${from}`);
      }
    }
    assert.ok(matches > 5000, `generated inputs hold matches (${matches})`);
    // the longest a match can be before its operator's blanks: every quote and `]` around names of 78–83 characters
    for (const lead of ['', 'x ', 'lorem ipsum dolor sit amet, consectetur adipiscing ', '-', '.']) {
      for (const open of ['', '"', "'", '`', '\\"', '\\']) {
        for (let n = 78; n <= 83; n++) {
          for (const close of ['', '"', "'", ']', '"]', '\\"]']) {
            for (const op of [':', '=', ' \t =', '=>', ':=', '==']) all(`${lead}${open}${'k'.repeat(n - 5)}token${close}${op} v`, []);
          }
        }
      }
    }
    for (const x of [...SECRET_SHAPES.map((v) => v.text), ...NEAR_MISSES.map((v) => (typeof v === 'string' ? v : v.text))]) all(x, []);
  });
  it('the named-pair gates hold wherever their patterns match: name/value entries, list pairs and argv pairs in JSON, YAML and code', () => {
    const next = rng(20261204);
    // entries that match, then cut, doubled and mixed up: the gates must hold wherever a pattern still matches
    const templates = ['{"name": "DB_PASSWORD", "value": "hunter2"}', '- name: API_TOKEN\n  value: s3cr3t', '"value": "abc", "key": "secret"', '\\"Name\\": \\"pw\\", \\"Value\\": \\"x\\"', 'h = [("Authorization", "token abc")]', '["gpg", "--passphrase", "xyz"]', "('password', 'p4ss')"];
    const noise = ['', ' ', ',', ':', '"', "'", '\n', '[', '-', 'x'];
    const hit = (res: RegExp[], s: string) => res.some((re) => new RegExp(re.source, re.flags).test(s));
    let value = 0;
    let pair = 0;
    for (let t = 0; t < 30000; t++) {
      let s = templates[Math.floor(next() * templates.length)]! + (next() < 0.3 ? templates[Math.floor(next() * templates.length)] : '');
      for (let n = Math.floor(next() * 4); n > 0; n--) {
        const at = Math.floor(next() * s.length);
        s = s.slice(0, at) + noise[Math.floor(next() * noise.length)] + s.slice(at + 1 + Math.floor(next() * 2));
      }
      if (hit(NAMED_PAIR_PATTERNS.namedValue, s)) {
        value++;
        assert.ok(mayHoldNamedValue(s), JSON.stringify(s));
      }
      if (hit(NAMED_PAIR_PATTERNS.pair, s)) {
        pair++;
        assert.ok(mayHoldPair(s), JSON.stringify(s));
      }
    }
    assert.ok(value > 100 && pair > 100, `generated inputs match (${value}, ${pair})`);
  });
  it('truncateString counts bytes before copying and cuts as copying first did: lone surrogates, emoji and é at the limit', () => {
    const next = rng(20261205);
    const chars = ['a', 'é', '€', '\u{1F600}', '\ud800', '\udc00', '\n'];
    // the cut as it was made before the count: copy, then measure the copy
    const copied = (s: string, limit: number) => {
      if (s.length * 3 <= limit) return { value: s, truncated: false };
      const buf = Buffer.from(s, 'utf8');
      if (buf.length <= limit) return { value: s, truncated: false };
      let end = Math.min(limit < 32 ? limit : limit - MARK.length - 1, buf.length);
      while (end > 0 && end < buf.length && (buf[end]! & 0xc0) === 0x80) end--;
      return { value: buf.toString('utf8', 0, end) + (limit < 32 ? '' : MARK), truncated: true };
    };
    let cut = 0;
    for (let t = 0; t < 20000; t++) {
      const limit = [16, 64, 100, 2048][Math.floor(next() * 4)]!;
      let s = '';
      for (let n = Math.floor(limit / 4 + next() * limit * 0.8); n > 0; n--) s += chars[Math.floor(next() * chars.length)];
      const got = truncateString(s, limit);
      if (got.truncated) cut++;
      assert.deepEqual(got, copied(s, limit), `${JSON.stringify(s)}, ${limit}`);
    }
    assert.ok(cut > 2000 && cut < 18000, `both ways taken (${cut} cut)`);
  });
  it('namedValueKey lowers only keys as long as `name`, `key` or `value`, and finds what lowering every key finds (the Kelvin sign too)', () => {
    const next = rng(20261206);
    const keys = ['name', 'NAME', 'Key', '\u212aey', 'n\u0130me', 'value', 'VALUE', 'Value', 'valu', 'values', 'na', 'x', 'keys', 'İ'];
    const values = ['DB_PASSWORD', 'api_key', 'user', 'hunter2', 12, '/tmp/x', '12'];
    const slow = (node: Record<string, unknown>) => {
      let name: unknown;
      let valueKey: string | undefined;
      for (const k of Object.keys(node)) {
        const lower = k.toLowerCase();
        if (lower === 'name' || lower === 'key') name = node[k];
        else if (lower === 'value') valueKey = k;
      }
      if (valueKey === undefined || typeof name !== 'string') return undefined;
      return namedValueKey({ name, [valueKey]: node[valueKey] }) === undefined ? undefined : valueKey;
    };
    let found = 0;
    for (let t = 0; t < 20000; t++) {
      const node: Record<string, unknown> = {};
      for (let n = 1 + Math.floor(next() * 4); n > 0; n--) node[keys[Math.floor(next() * keys.length)]!] = values[Math.floor(next() * values.length)];
      const got = namedValueKey(node);
      if (got !== undefined) found++;
      assert.equal(got, slow(node), JSON.stringify(node));
    }
    assert.ok(found > 500, `generated entries hold secrets (${found})`);
  });

  it('the prompt detector needs a `:` and finds answers with one', () => {
    const out: { start: number; end: number }[] = [];
    PROMPT_DETECTOR.find('Enter passphrase for key id_rsa hunter2', out);
    assert.deepEqual(out, []);
    PROMPT_DETECTOR.find('[sudo] password for alice: hunter2', out);
    assert.equal(out.length, 1);
  });
});

describe('the name detectors wake on every secret name (their keyword gate)', () => {
  it('free text naming a one-time code, a PIN, a signature or a private value with no other stem is redacted', () => {
    // names.ts judges these names secret; the detectors' keywords (forms.ts NAME_STEMS) held none of
    // them, so such a line with no `token`/`key`/`pass`… beside was stored in the clear
    for (const [text, value] of [
      ['the otp: 123456 works', '123456'], ['set pin=4821 now', '4821'], ['url sig=AbCdEf0123456789xyz', 'AbCdEf0123456789xyz'],
      ['mfa_code=778899', '778899'], ['recovery_code: 1234-5678', '1234-5678'], ['TOTP = 908172', '908172'],
      ['private: abcdefgh12345', 'abcdefgh12345'], ['sms_code=4455', '4455'], ['backup_code: 99-88-77', '99-88-77'],
    ] as const) {
      const out = redactText(text);
      assert.ok(!out.includes(value), `${text} → ${out}`);
      assert.match(out, /\[REDACTED\]/);
    }
    for (const plain of ['mapping: value', 'ping=3', 'spinner: fast', 'function_signature: (a) => b', 'backup: nightly']) assert.equal(redactText(plain), plain);
  });
});
