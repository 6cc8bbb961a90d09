/**
 * Redaction stays linear in its input. Each detector gets 64 KB built to make a regex backtrack or
 * a scan restart (a run of spaces after a prompt's answer, a secret name repeated with nothing
 * between, a command's name repeated, a URL's `@` followed by host-like runs…) and must finish
 * inside a budget a loaded 2-core CI box keeps. Linear detectors take ~1–60 ms here; the quadratic
 * patterns issue 29's review found took 0.3–15 s on the same inputs, so a new one fails this suite.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { DETECTORS } from '../../src/redact/forms';
import { redactText } from '../../src/redact/secrets';
import type { TextRange } from '../../src/redact/rule-set';

const SIZE = 64 * 1024;
const BUDGET_MS = 250;

const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
/** `head`, then `run` repeated to 64 KB, then one character that ends no run. */
const tail = (head: string, run: string) => (head + fill(run)).slice(0, SIZE - 1) + 'y';

/** Milliseconds `work` takes; a second try when over budget, so one stall of a shared box is no failure. */
function elapsed(work: () => void): number {
  let best = Infinity;
  for (let attempt = 0; attempt < 2 && best > BUDGET_MS; attempt++) {
    const t0 = performance.now();
    work();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/** The inputs for one word (a detector's keyword or a secret name): each repeated with what may follow it. */
function adversarial(word: string): [string, string][] {
  const units = [':', '=', ' ', '"', "'", '@', '.', '-', '\n', ': ', ' -p ', ' -u a:', ' for x: ', '://u:@', '://u:p@a.', ' login ']
    .map((after) => word + after)
    .concat([`"${word}":"`, `["${word}", `, `{"name":"${word}","value":"`, `"value":"x","name":"${word}`, `machine ${word} `, `Enter ${word}: `]);
  const inputs: [string, string][] = units.map((u) => [`${JSON.stringify(u)} repeated`, fill(u)]);
  for (const head of [': x', ' for ', '="', ' -N ', '://u:p@']) {
    for (const run of [' ', 'a', 'a.', '@']) inputs.push([`${JSON.stringify(word + head)} then ${JSON.stringify(run)} repeated`, tail(word + head, run)]);
  }
  return inputs;
}

describe('redaction stays linear on 64 KB of adversarial text', () => {
  redactText('warm up: password=abc123 token: xyz');

  // the review's inputs, whole (every detector and rule their keywords wake)
  const named: [string, string][] = [
    ['a prompt answer, then 64 KB of spaces', tail('Enter password: x', ' ')],
    ["sudo's prompt answered, then 64 KB of spaces", tail('[sudo] password for alice: ok', ' ')],
    ["'pw:' repeated to 64 KB", fill('pw:')],
    ["'token:' repeated to 64 KB", fill('token:')],
    ["'password=' repeated to 64 KB", fill('password=')],
    ["'ssh-keygen:' repeated to 64 KB", fill('ssh-keygen:')],
    ["'htpasswd=' repeated to 64 KB", fill('htpasswd=')],
    ["'docker login ' repeated to 64 KB", fill('docker login ')],
  ];
  for (const [name, text] of named) {
    it(`redactText: ${name} (< ${BUDGET_MS} ms)`, () => {
      const ms = elapsed(() => redactText(text));
      assert.ok(ms < BUDGET_MS, `${ms.toFixed(0)} ms`);
    });
  }

  for (const d of DETECTORS) {
    const words = [...new Set([...d.keywords.slice(0, 3), 'password', 'pw'])];
    it(`${d.id}: each generated 64 KB input (${words.join(', ')}) < ${BUDGET_MS} ms`, () => {
      const slow: string[] = [];
      for (const word of words) {
        for (const [name, text] of adversarial(word)) {
          const ms = elapsed(() => d.find(text, [] as TextRange[]));
          if (ms >= BUDGET_MS) slow.push(`${name}: ${ms.toFixed(0)} ms`);
        }
      }
      assert.deepEqual(slow, []);
    });
  }
});
