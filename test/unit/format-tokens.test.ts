import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fmtTokens } from '../../src/dashboard/format';

describe('token counts on the dashboard', () => {
  it('three significant digits and a unit, and never 1000 of a unit (999,999 is 1 M)', () => {
    const cases: [number, string][] = [[999, '999'], [1240, '1.24 k'], [11_200, '11.2 k'], [999_499, '999 k'], [999_500, '1 M'], [999_999, '1 M'], [2_350_000, '2.35 M'], [999_999_999, '1 G'], [1.5e12, '1500 G']];
    for (const [n, want] of cases) assert.equal(fmtTokens(n), want, String(n));
  });
});
