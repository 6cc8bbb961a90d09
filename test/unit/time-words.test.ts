/**
 * Issue 24 item 8 (fails on main: `--since yesterday` was refused): the time words people type, as
 * journalctl and git log take them, in the one parser every command and the dashboard use.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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

  it('local midnight without utc, in the zone the process runs in', () => {
    // A pinned zone and a literal answer: on a UTC machine local and UTC midnight are the same instant.
    const code = `const { parseTimeBound } = require(${JSON.stringify(require.resolve('../../src/model/time'))});
      process.stdout.write(String(parseTimeBound('yesterday', { now: ${NOW}, utc: false }).ns / 1000000n));`;
    const r = spawnSync(process.execPath, ['-e', code], { env: { ...process.env, TZ: 'America/New_York' }, encoding: 'utf8' });
    assert.equal(r.stderr, '');
    assert.equal(Number(r.stdout), Date.parse('2026-11-30T05:00:00Z'), 'midnight of 30 November in New York (UTC-5)');
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
