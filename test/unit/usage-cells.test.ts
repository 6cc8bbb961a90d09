import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spanEventId } from '../../src/model/event-id';
import { INSERT_EVENT_SQL, runInsert } from '../../src/store/log/columns';
import { EventLog } from '../../src/store/log/event-log';
import type { EventRow } from '../../src/store/log/row';
import { STORE_SCHEMA_VERSION } from '../../src/store/log/schema';
import { prune } from '../../src/store/maintenance/retention';
import { queryModelDurations } from '../../src/store/queries/latency';
import { listSessions } from '../../src/store/queries/sessions';
import { ACTIVITY_COLUMNS, joinToolCalls, type StoredActivity } from '../../src/store/queries/tool-calls';
import { queryUsage, USAGE_GROUPINGS, type UsageFilter } from '../../src/store/queries/usage';
import { comparable, rawUsage } from '../helpers/raw-usage';
import { tempDir } from '../helpers/paths';

const DAY = 86_400_000_000_000n;
const Q = 900_000_000_000n;
const NOW = BigInt(Date.now()) * 1_000_000n;
const T0 = (NOW / DAY - 3n) * DAY;

/** A seeded generator (mulberry32): a failure names its seed and replays. */
function rng(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(xs: readonly T[]) => xs[int(xs.length)]! };
}
type Rng = ReturnType<typeof rng>;

const MODELS = [['claude-sonnet-4-5-20250929', 'anthropic'], ['claude-sonnet-4-5', 'anthropic'], ['gpt-5.4', 'openai'], [null, null], ['gpt-5.4', null]] as const;
const SESSIONS = ['s1', 's2', 's10', '', null] as const;

function event(r: Rng, id: string, extra: Partial<EventRow> = {}): EventRow {
  const model = r.int(3) > 0;
  const [m, p] = r.pick(MODELS);
  const tok = () => (r.int(5) === 0 ? null : r.int(4) === 0 ? 150_000 + r.int(200_000) : r.int(5000));
  return {
    id, tsNs: T0 + BigInt(r.int(2 * 86_400)) * 1_000_000_000n + BigInt(r.int(1_000_000_000)), harness: r.pick(['goose', 'claude-code']), method: 'otlp',
    action: model ? 'model.invoked' : r.pick(['tool.invoked', 'tool.failed', 'command.executed', 'command.executed', 'file.modified', 'approval.denied', 'prompt.submitted']), sessionId: r.pick(SESSIONS), traceId: null, spanId: null, parentSpanId: null,
    toolCallId: model ? null : r.pick(['c1', 'c2', 'c3', 'c4', null]), model: model ? m : null, provider: model ? p : null, inputTokens: model ? tok() : null, outputTokens: model ? tok() : null,
    cacheReadTokens: model ? tok() : null, cacheCreationTokens: model ? tok() : null, reasoningTokens: model ? tok() : null,
    costUsd: model && r.int(3) === 0 ? r.int(1000) / 7 : null,
    record: JSON.stringify({ gen_ai: { duration_ms: r.pick([r.int(5000), r.int(5000) + 0.5, -3, 'slow', null]) }, command: { exit_code: r.pick([0, 1, 127, null, '2']) } }), dropIfChatChildStored: false, ...extra,
  };
}

/** A random filter and window: whole quarter hours, edges inside them, windows inside one quarter hour, and open ends. */
function randomFilter(r: Rng): UsageFilter {
  const at = () => T0 + BigInt(r.int(2 * 96)) * Q + (r.int(2) ? 0n : BigInt(r.int(900)) * 1_000_000_000n + 1n);
  const f: UsageFilter = {};
  const shape = r.int(5);
  if (shape !== 0) f.sinceNs = at();
  if (shape !== 1) f.untilNs = shape === 4 && f.sinceNs !== undefined ? f.sinceNs + BigInt(r.int(1800)) * 1_000_000_000n : at();
  if (r.int(4) === 0) f.sessionId = r.pick(['s1', 's10', '', 'none']);
  if (r.int(4) === 0) f.harness = r.pick(['goose', 'claude-code']);
  if (r.int(4) === 0) f.model = r.pick(['claude-sonnet-4-5', 'gpt', 'claude-sonnet-4-5-20250929', '']);
  return f;
}

function assertExact(db: Database.Database, r: Rng, what: string, rounds = 60): void {
  for (let i = 0; i < rounds; i++) {
    const f = i === 0 ? {} : randomFilter(r);
    for (const by of USAGE_GROUPINGS) {
      assert.deepEqual(comparable(queryUsage(db, f, by)), rawUsage(db, f, by), `${what}: by ${by} ${JSON.stringify(f, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    }
  }
  // No empty cell is left behind (a deleted cell's calls reached 0).
  if (db.pragma('user_version', { simple: true }) === 4) return;
  for (const t of ['usage_cells', 'usage_totals']) assert.equal(db.prepare(`SELECT count(*) FROM ${t} WHERE calls <= 0`).pluck().get(), 0, `${what}: ${t}`);
}

/** A v4 log as an older Beacon left it: no rollup, the v2 usage index, the narrow session index. */
function makeV4(path: string, rows: readonly EventRow[]): void {
  EventLog.open(path).close();
  const db = new Database(path);
  db.exec(`DROP TRIGGER usage_cells_insert; DROP TRIGGER usage_cells_delete; DROP TRIGGER usage_cells_update_old; DROP TRIGGER usage_cells_update_new;
    DROP TABLE usage_cells; DROP TABLE usage_totals; DROP INDEX events_latency; DROP INDEX events_session;
    CREATE INDEX events_session ON events(session_id, ts_ns);
    CREATE INDEX events_usage ON events(ts_ns, model, provider, session_id, harness, method,
      input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens, cost_usd) WHERE action = 'model.invoked';
    PRAGMA user_version = 4;`);
  const insert = db.prepare(INSERT_EVENT_SQL);
  db.transaction(() => rows.forEach((row) => runInsert(insert, row, NOW)))();
  db.close();
}

describe('the persisted usage rollup (schema v5)', () => {
  for (const seed of [1, 2, 3]) {
    it(`equals the raw aggregate after inserts, retried inserts, chat-wrapper deletes, updates and retention (seed ${seed})`, () => {
      const r = rng(seed);
      const path = join(tempDir(), 'e.db');
      let log = EventLog.open(path, { clock: () => NOW - 100n * DAY }); // received long ago: retention's first victims
      const old = Array.from({ length: 400 }, (_, i) => event(r, `old-${i}`));
      log.append(old);
      log.close();
      log = EventLog.open(path);
      const young = Array.from({ length: 600 }, (_, i) => event(r, `young-${i}`));
      for (let i = 0; i < young.length; i += 50) log.append(young.slice(i, i + 50));
      assertExact(log.db, r, 'inserted');

      // Retries (the same ids again, with other values) change nothing: INSERT OR IGNORE fires no trigger.
      const before = comparable(queryUsage(log.db, {}, 'session'));
      const retried = log.append([...old.slice(0, 50), ...young.slice(100, 200)].map((row) => ({ ...row, inputTokens: 999_999, costUsd: 5 })));
      assert.equal(retried.inserted, 0);
      assert.deepEqual(comparable(queryUsage(log.db, {}, 'session')), before);

      // A chat span stored before its child is removed when the child arrives (the append's own DELETE).
      const wrapper = event(r, spanEventId('T1', 'P'), { action: 'model.invoked', model: 'gpt-5.4', provider: 'openai', inputTokens: 77, traceId: 'T1', spanId: 'P', parentSpanId: 'ROOT', dropIfChatChildStored: true });
      log.append([wrapper]);
      const child = event(r, spanEventId('T1', 'C'), { action: 'model.invoked', model: 'gpt-5.4', provider: 'openai', inputTokens: 88, traceId: 'T1', spanId: 'C', parentSpanId: 'P', dropIfChatChildStored: true });
      assert.equal(log.append([child]).dropped, 1);
      assertExact(log.db, r, 'after the chat dedup', 20);

      // Nothing updates events today; if something did, the cells would follow.
      log.db.exec(`UPDATE events SET input_tokens = coalesce(input_tokens, 0) + 1, session_id = 's2' WHERE seq % 7 = 0;
        UPDATE events SET action = CASE action WHEN 'model.invoked' THEN 'tool.invoked' ELSE 'model.invoked' END WHERE seq % 11 = 0`);
      assertExact(log.db, r, 'after updates', 20);

      const pruned = prune(log.db, { maxAgeDays: 90, maxBytes: 0 }, NOW);
      assert.ok(pruned.deletedByAge >= 400, `${pruned.deletedByAge} pruned`);
      assertExact(log.db, r, 'after retention');
      log.db.exec('DELETE FROM events');
      assert.deepEqual([log.db.prepare('SELECT count(*) FROM usage_cells').pluck().get(), log.db.prepare('SELECT count(*) FROM usage_totals').pluck().get()], [0, 0]);
      log.close();
    });
  }

  it('a v4 log: read-only readers answer from its usage index, and the first writer migrates it with its rows counted', () => {
    const r = rng(7);
    const path = join(tempDir(), 'e.db');
    makeV4(path, Array.from({ length: 800 }, (_, i) => event(r, `v4-${i}`)));
    const reader = EventLog.open(path, { readonly: true });
    assert.equal(reader.db.pragma('user_version', { simple: true }), 4);
    assertExact(reader.db, r, 'v4 read-only', 20);
    const page = roundCosts(listSessions(reader.db, {}, {}));
    assert.ok(page.total > 0 && page.sessions.every((s) => s.detail !== undefined));
    const durations = queryModelDurations(reader.db, {});
    assert.ok([...durations.values()].some((d) => d.count > 0));
    reader.close();

    const log = EventLog.open(path);
    assert.equal(log.db.pragma('user_version', { simple: true }), STORE_SCHEMA_VERSION);
    assert.equal(log.db.prepare('SELECT sum(calls) FROM usage_totals').pluck().get(), log.db.prepare("SELECT count(*) FROM events WHERE action = 'model.invoked'").pluck().get());
    assertExact(log.db, r, 'migrated', 30);
    // The migrated log answers the sessions page (its details now from the session index alone) and the latency as the v4 log did.
    for (const s of page.sessions) assert.deepEqual(s.detail, foldDetail(log.db, s.id), `session ${s.id}`);
    assert.ok(page.sessions.some((s) => s.detail!.failedCalls > 0 && s.detail!.deniedCalls > 0 && Object.keys(s.detail!.toolCalls).length > 2), 'the details are exercised');
    assert.deepEqual(roundCosts(listSessions(log.db, {}, {})), page);
    assert.deepEqual(latencies(queryModelDurations(log.db, {})), latencies(durations));
    log.append(Array.from({ length: 100 }, (_, i) => event(r, `v5-${i}`)));
    assertExact(log.db, r, 'migrated, then appended', 20);
    log.close();
  });
});

/**
 * A session's detail folded in JS from every one of its rows through the timeline's join (which
 * pairs a reused call id by path: store/queries/tool-calls.ts): the reference for the SQL that sums
 * the calls whose ids are not reused straight from the session index and joins only the others.
 */
function foldDetail(db: Database.Database, id: string) {
  const rows = db.prepare(`SELECT ${ACTIVITY_COLUMNS} FROM events WHERE session_id = ? ORDER BY ts_ns, seq`).all(id) as StoredActivity[];
  const detail = { toolCalls: {} as Record<string, number>, failedCalls: 0, failedCommands: 0, deniedCalls: 0, prompts: rows.filter((r) => r.action === 'prompt.submitted').length, methods: [...new Set(rows.map((r) => r.method))].sort(), events: rows.length };
  for (const c of joinToolCalls(rows)) {
    if (c.kind !== 'tool_call') continue;
    const kind = c.denied ? 'denied' : c.action ?? 'tool'; // a denied call is of kind denied, whatever its agent's record says (sessions.ts addCalls)
    detail.toolCalls[kind] = (detail.toolCalls[kind] ?? 0) + 1;
    if (c.failed) detail.failedCalls++;
    if (c.failed && kind === 'command.executed') detail.failedCommands++;
    if (c.denied) detail.deniedCalls++;
  }
  return detail;
}

/** A sessions page with its reported costs to 1e-9 (float sums in another order differ in their last bits); rows keep their order. */
function roundCosts(page: ReturnType<typeof listSessions>) {
  return { ...page, sessions: page.sessions.map((s) => ({ ...s, usage: s.usage.map((u) => ({ ...u, reportedCost: u.reportedCost === null ? null : Math.round(u.reportedCost * 1e9) / 1e9 })) })) };
}

/** Every rank of every model's durations, as plain data. */
function latencies(m: ReturnType<typeof queryModelDurations>) {
  return [...m.values()].map((d) => ({ model: d.model, provider: d.provider, ms: Array.from({ length: d.count }, (_, i) => d.at(i)) })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

describe('model call latency from events_latency', () => {
  it('ranks the same durations the records hold (numbers ≥ 0 only), per model, whole log or one model', () => {
    const r = rng(11);
    const log = EventLog.open(join(tempDir(), 'e.db'));
    log.append(Array.from({ length: 600 }, (_, i) => event(r, `e-${i}`)));
    // Hand-written records: what JSON.stringify cannot write still parses in SQLite (1e400 is +Inf there).
    log.append(['{"gen_ai":{"duration_ms":1e400}}', '{"gen_ai":{"duration_ms":"12"}}', '{"gen_ai":{"duration_ms":0}}', '{}'].map((record, i) => event(r, `odd-${i}`, { action: 'model.invoked', model: 'gpt-5.4', provider: 'openai', record })));
    const plan = log.db.prepare(`EXPLAIN QUERY PLAN SELECT json_extract(record, '$.gen_ai.duration_ms') FROM events INDEXED BY events_latency WHERE action = 'model.invoked' AND model IS 'x' AND provider IS 'y' ORDER BY json_extract(record, '$.gen_ai.duration_ms') LIMIT 1 OFFSET 3`).all() as { detail: string }[];
    assert.match(plan.map((p) => p.detail).join(' | '), /COVERING INDEX events_latency/);
    for (const f of [{}, { model: 'gpt' }, { model: 'claude-sonnet-4-5' }]) {
      // A window that holds every event takes the records path: the reference.
      const fromRecords = latencies(queryModelDurations(log.db, { ...f, sinceNs: 0n }));
      assert.ok(fromRecords.some((d) => d.ms.length > 10));
      assert.deepEqual(latencies(queryModelDurations(log.db, f)), fromRecords);
    }
    log.close();
  });
});
