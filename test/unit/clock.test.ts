import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nowUnixNano } from '../../src/model/time';

describe('nowUnixNano', () => {
  it('is strictly increasing, and stays on the wall clock', () => {
    const stamps = Array.from({ length: 5000 }, () => nowUnixNano());
    for (let i = 1; i < stamps.length; i++) assert.ok(stamps[i]! > stamps[i - 1]!, `stamp ${i} after stamp ${i - 1}`);
    const drift = Number(nowUnixNano() / 1_000_000n) - Date.now();
    assert.ok(Math.abs(drift) < 50, `within 50 ms of Date.now(), was ${drift}`);
  });

  it('follows the wall clock across a jump a monotonic clock would not see (a laptop waking up, a clock set back)', (t) => {
    const real = Date.now;
    t.after(() => {
      Date.now = real;
    });
    const before = nowUnixNano();
    const eightHours = 8 * 3600 * 1000;
    Date.now = () => real() + eightHours; // what the wall clock says after a night of sleep
    const after = nowUnixNano();
    assert.ok(after - before >= BigInt(eightHours - 1000) * 1_000_000n, 'the night is in the timestamps');
    Date.now = () => real() - 60_000; // set back a minute
    const back = Number(nowUnixNano() / 1_000_000n);
    assert.ok(Math.abs(back - (real() - 60_000)) < 50, 'a clock set back is followed');
  });
});
