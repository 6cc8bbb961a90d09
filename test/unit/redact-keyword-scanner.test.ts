/**
 * The keyword scan's automaton (secrets.ts, issue 31 item 4: the trie regex was 1.3 s of a month's
 * 8.9 s import) must name exactly the rules and detectors the regex names, on every string.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { maySecret, prefilterKeywords, redactText, runnersOf, scannerInUse } from '../../src/redact/secrets';
import { NEAR_MISSES, SECRET_SHAPES } from '../helpers/secret-corpus';
import { rng } from '../helpers/rng';


const names = (runners: Set<unknown>) => [...runners].map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'function' ? undefined : v))).sort();

describe('the keyword automaton', () => {
  it('names the same runners as the trie regex: keywords cut, overlapping, in mixed case, beside non-ASCII look-alikes', () => {
    const next = rng(20261202);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    const keywords = prefilterKeywords();
    // ſ (long s), K (Kelvin), İ and ı fold to ASCII letters only under Unicode case folding, which the regex does not use
    const filler = ['', ' ', 'x', '-', '_', '.', '=', '\n', 'é', 'ſ', '\u212a', 'İ', 'ı', '\u{1F600}', 'Z9'];
    for (let t = 0; t < 20000; t++) {
      let s = '';
      for (let n = Math.floor(next() * 6); n >= 0; n--) {
        let k = pick(keywords);
        if (next() < 0.3) k = k.slice(0, Math.max(1, Math.floor(next() * k.length))); // a keyword cut short
        if (next() < 0.3) k = k.slice(Math.floor(next() * k.length)); // or its tail
        s += [...k].map((ch) => (next() < 0.4 ? ch.toUpperCase() : ch)).join('') + pick(filler);
      }
      assert.deepEqual(names(runnersOf(s, 'automaton')), names(runnersOf(s, 'regex')), JSON.stringify(s));
    }
    for (const s of [...SECRET_SHAPES.map((x) => x.text ?? String(x)), ...NEAR_MISSES.map((x) => x.text ?? String(x))]) {
      assert.deepEqual(names(runnersOf(s, 'automaton')), names(runnersOf(s, 'regex')), s);
    }
  });

  it('is what a process scans with once it has scanned a MiB, and redaction finds the same secrets with it', () => {
    const code = `
      const { redactText, scannerInUse, maySecret } = require('./dist/src/redact/secrets');
      const before = scannerInUse();
      const prose = 'the quick brown fox jumps over the lazy dog '.repeat(30000);
      redactText(prose);
      const s = 'export GITHUB_TOKEN=ghp_' + 'a1B2c3D4e5'.repeat(3) + 'abcdef and password: hunter2hunter2';
      console.log(JSON.stringify({ before, after: scannerInUse(), out: redactText(s), clean: maySecret('nothing here at all') }));`;
    const r = spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const got = JSON.parse(r.stdout) as { before: boolean; after: boolean; out: string; clean: boolean };
    assert.equal(got.before, false);
    assert.equal(got.after, true);
    assert.equal(got.clean, false === maySecret('nothing here at all') ? false : true);
    assert.equal(got.out, redactText('export GITHUB_TOKEN=ghp_' + 'a1B2c3D4e5'.repeat(3) + 'abcdef and password: hunter2hunter2'));
    assert.ok(!got.out.includes('hunter2') && !got.out.includes('ghp_a1B2'), got.out);
    assert.equal(typeof scannerInUse(), 'boolean');
  });
});
