import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { calendarLabel, type Calendar } from '../../src/model/time';
import { EventLog } from '../../src/store/log/event-log';
import type { EventRow } from '../../src/store/log/row';
import { TEST_SESSION_PREFIX } from '../../src/model/send-test';
import { calendarUnits } from '../../src/store/queries/usage-calendar';
import { queryUsage, type UsageFilter, type UsageRow } from '../../src/store/queries/usage';
import { tempDir } from '../helpers/paths';

const Q_MS = 900_000;
const Q_NS = 900_000_000_000n;
const CALENDARS: Calendar[] = ['hour', 'day', 'week', 'month'];
/** Zones whose days are not 24 hours twice a year, shifted by 30 minutes (Lord Howe), or offset by 45 (Chatham). */
const ZONES = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata', 'Pacific/Chatham', 'UTC'];
const savedTz = process.env.TZ;
after(() => {
  process.env.TZ = savedTz ?? '';
  if (savedTz === undefined) delete process.env.TZ;
});

/** Quarter hours from a UTC date. */
const q = (iso: string) => Date.parse(iso) / Q_MS;

describe('calendarUnits: the quarter hours of each calendar label', () => {
  for (const tz of ZONES) {
    it(`covers every quarter hour once, each unit one label, next units other labels (${tz}, both DST changes)`, () => {
      process.env.TZ = tz;
      for (const by of CALENDARS) {
        for (const utc of [false, true]) {
          // a year for days, weeks and months; for hours the weeks around both changes of 2026
          const spans = by === 'hour' ? [[q('2026-03-25T00:00:00Z'), q('2026-04-08T00:00:00Z')], [q('2026-09-23T00:00:00Z'), q('2026-11-06T00:00:00Z')]] : [[q('2025-12-20T05:15:00Z'), q('2027-01-03T00:00:00Z')]];
          for (const [first, last] of spans as [number, number][]) {
            const units = calendarUnits(first, last, by, utc)!;
            const label = (x: number) => calendarLabel(x * Q_MS, by, utc);
            assert.equal(units[0]![0], first);
            assert.ok(units.at(-1)![1] > last);
            units.forEach(([start, end], i) => {
              if (i > 0) assert.equal(start, units[i - 1]![1], `${tz} ${by}: contiguous`);
              assert.ok(end > start);
              for (let x = start; x < end; x++) assert.equal(label(x), label(start), `${tz} ${by} utc=${utc}: quarter hour ${x} in the unit of ${label(start)}`);
              assert.notEqual(label(end), label(start), `${tz} ${by} utc=${utc}: the unit after ${label(start)} has another label`);
            });
          }
        }
      }
    });
  }

  it('none for an empty span, undefined past the limit or before 1970 (per quarter hour then)', () => {
    assert.deepEqual(calendarUnits(10, 9, 'day', true), []);
    assert.equal(calendarUnits(q('2026-01-01T00:00:00Z'), q('2026-12-31T00:00:00Z'), 'hour', true, 100), undefined);
    assert.equal(calendarUnits(-5, 3, 'day', true), undefined);
    assert.deepEqual(calendarUnits(0, 95, 'day', true), [[0, 96]]);
  });
});

function call(id: string, iso: string, extra: Partial<EventRow> = {}): EventRow {
  return {
    id, tsNs: BigInt(Date.parse(iso)) * 1_000_000n, harness: 'claude-code', method: 'otlp', action: 'model.invoked', sessionId: 's1', traceId: null, spanId: null, parentSpanId: null, toolCallId: null,
    model: 'claude-sonnet-4-5', provider: 'anthropic', inputTokens: 10, outputTokens: 5, cacheReadTokens: 300_000, cacheCreationTokens: 1, reasoningTokens: 2, costUsd: 0.25, record: '{}', dropIfChatChildStored: false, ...extra,
  };
}

/** Rows summed per (label, model, provider): what a report shows, whatever grain the rows came at. */
function perLabel(rows: readonly UsageRow[], by: Calendar, utc: boolean) {
  const out = new Map<string, Omit<UsageRow, 'grp' | 'reportedCost'> & { reportedCost: number | null }>();
  for (const r of rows) {
    const key = JSON.stringify([calendarLabel(Number(BigInt(r.grp!) * Q_NS / 1_000_000n), by, utc), r.model, r.provider]);
    const g = out.get(key) ?? { model: r.model, provider: r.provider, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, reportedCost: null, reportedCalls: 0, above: {} };
    for (const k of ['calls', 'input', 'output', 'cacheRead', 'cacheWrite', 'reasoning', 'reportedCalls'] as const) g[k] += r[k];
    if (r.reportedCost !== null) g.reportedCost = Math.round(((g.reportedCost ?? 0) + r.reportedCost) * 1e9) / 1e9;
    for (const [t, b] of Object.entries(r.above)) {
      const a = (g.above[Number(t)] ??= { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
      for (const k of ['input', 'output', 'cacheRead', 'cacheWrite'] as const) a[k] += b[k];
    }
    out.set(key, g);
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}

describe('queryUsage per calendar unit', () => {
  it('sums the cells per unit (one row per label, model and provider), the same sums as per quarter hour, send-test calls taken out', () => {
    process.env.TZ = 'Europe/Berlin';
    const log = EventLog.open(join(tempDir(), 'e.db'));
    try {
      const rows: EventRow[] = [];
      // every 37 minutes over the autumn change of 2026 (25 October), two models, a send-test session among them
      const t0 = Date.parse('2026-10-20T00:03:00Z');
      for (let i = 0; i < 800; i++) {
        const iso = new Date(t0 + i * 37 * 60_000).toISOString();
        rows.push(call(`c${i}`, iso, i % 3 === 0 ? { model: 'gpt-5', provider: 'openai', costUsd: null } : i % 17 === 0 ? { sessionId: `${TEST_SESSION_PREFIX}x${i}` } : {}));
      }
      log.append(rows);
      const filters: UsageFilter[] = [{}, { sinceNs: BigInt(Date.parse('2026-10-22T10:07:00Z')) * 1_000_000n, untilNs: BigInt(Date.parse('2026-10-30T03:50:00Z')) * 1_000_000n }, { harness: 'claude-code', model: 'claude' }];
      for (const by of CALENDARS) {
        for (const utc of [false, true]) {
          for (const f of filters) {
            const perUnit = queryUsage(log.db, f, by, { utc });
            assert.deepEqual(perLabel(perUnit, by, utc), perLabel(queryUsage(log.db, f, by), by, utc), `${by} utc=${utc} ${JSON.stringify(f, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
            if (f.sinceNs !== undefined) continue; // a window's edges come per quarter hour, from the rows
            const keys = perUnit.map((r) => JSON.stringify([calendarLabel(Number(BigInt(r.grp!) * Q_NS / 1_000_000n), by, utc), r.model, r.provider]));
            assert.equal(new Set(keys).size, keys.length, `${by} utc=${utc}: one row per label, model and provider`);
          }
        }
      }
      assert.ok(!queryUsage(log.db, {}, 'day', { utc: true }).some((r) => r.calls <= 0), 'the send-test calls are taken out per unit, no negative row');
    } finally {
      log.close();
    }
  });
});
