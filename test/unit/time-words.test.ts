/**
 * Issue 24 item 8 (fails on main: `--since yesterday` was refused): the time words people type, as
 * journalctl and git log take them, in the one parser every command and the dashboard use.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTimeBound } from '../../src/model/time';

const NOW = Date.UTC(2026, 11, 1, 15, 30, 0); // 2026-12-01T15:30:00Z
const ms = (v: string, utc = true) => {
  const r = parseTimeBound(v, { now: NOW, utc });
  assert.ok('ns' in r, `${v}: ${'error' in r ? r.error : ''}`);
  return Number(r.ns / 1_000_000n);
};

describe('time words (issue 24 item 8)', () => {
  it('today, yesterday, tomorrow are midnights; now is now', () => {
    assert.equal(ms('today'), Date.UTC(2026, 11, 1));
    assert.equal(ms('yesterday'), Date.UTC(2026, 10, 30));
    assert.equal(ms('Tomorrow'), Date.UTC(2026, 11, 2));
    assert.equal(ms('now'), NOW);
  });

  it('local midnight without utc', () => {
    const d = new Date(NOW);
    assert.equal(ms('yesterday', false), new Date(d.getFullYear(), d.getMonth(), d.getDate() - 1).getTime());
  });

  it('durations back from now, with ago and unit words', () => {
    assert.equal(ms('1h ago'), NOW - 3600e3);
    assert.equal(ms('90 min ago'), NOW - 90 * 60e3);
    assert.equal(ms('3 days ago'), NOW - 3 * 86400e3);
    assert.equal(ms('2 weeks'), NOW - 14 * 86400e3);
    assert.equal(ms('7d'), NOW - 7 * 86400e3);
  });

  it('anything else is an error that lists the words', () => {
    const r = parseTimeBound('last tuesday', { now: NOW });
    assert.ok('error' in r);
    assert.match(r.error, /yesterday/);
    assert.ok('error' in parseTimeBound('3 fortnights ago', { now: NOW }));
  });
});
