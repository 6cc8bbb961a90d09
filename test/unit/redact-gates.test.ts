/**
 * The cheap tests redaction runs before a costly regex (issue 31 item 4's import speed) may skip it
 * only where it could not have matched: each is checked against the regex it stands in front of.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasBase64Run } from '../../src/redact/rule-set';
import { redactText } from '../../src/redact/secrets';
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
});
