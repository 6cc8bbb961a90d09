import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareLabels, groupDigits } from '../../src/model/digits';
import { calendarLabel } from '../../src/model/time';

describe('groupDigits and compareLabels: what toLocaleString and localeCompare gave, without ICU', () => {
  it('groups every number exactly as toLocaleString("en-US")', () => {
    const xs = [0, -0, 1, 999, 1000, -1000, 12_345, 1_234_567, 9_007_199_254_740_991, 1e21, 1.5, 1234.5, 1234.567, 1234.5678, 0.001, 1e-7, NaN, Infinity, -Infinity];
    let seed = 7;
    const rnd = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    for (let i = 0; i < 20_000; i++) xs.push(Math.floor(rnd() * 10 ** Math.floor(rnd() * 16)) * (rnd() < 0.2 ? -1 : 1), Number((rnd() * 10 ** Math.floor(rnd() * 7)).toFixed(Math.floor(rnd() * 5))));
    for (const x of xs) assert.equal(groupDigits(x), x.toLocaleString('en-US'), String(x));
  });

  it('orders calendar labels as localeCompare does, and other strings by localeCompare itself', () => {
    const labels: string[] = [];
    for (const by of ['hour', 'day', 'week', 'month'] as const) for (let h = 0; h < 24 * 400; h += 7) labels.push(calendarLabel(Date.UTC(2025, 11, 1) + h * 3_600_000, by, h % 2 === 0));
    labels.push('a', 'B', 'b', '(none)', 'claude-sonnet', 'Claude-sonnet', 'gpt-5', 'gpt-5.1', '2026-11-30', '2026-11-3');
    const sign = (n: number) => Math.sign(n);
    for (let i = 0; i < labels.length; i += 3) for (let j = 0; j < labels.length; j += 97) assert.equal(sign(compareLabels(labels[i]!, labels[j]!)), sign(labels[i]!.localeCompare(labels[j]!)), `${labels[i]} vs ${labels[j]}`);
  });
});
