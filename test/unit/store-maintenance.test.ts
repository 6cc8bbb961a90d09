import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { spanEventId } from '../../src/model/event-id';
import { EventLog } from '../../src/store/log/event-log';
import { EventLogWriter } from '../../src/store/writer/event-log-writer';
import { prune } from '../../src/store/maintenance/retention';
import type { EventRow } from '../../src/store/log/row';
import { STORE_SCHEMA_VERSION } from '../../src/store/log/schema';
import { healthReport } from '../../src/collector/health';
import { tempDir } from '../helpers/paths';

const DAY = 86_400_000_000_000n;
const NOW = BigInt(Date.now()) * 1_000_000n;

function row(id: string, extra: Partial<EventRow> = {}): EventRow {
  return {
    id, tsNs: NOW, harness: 'goose', method: 'otlp', action: 'tool.invoked', sessionId: 's1', traceId: null, spanId: null, parentSpanId: null,
    toolCallId: null, model: null, provider: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheCreationTokens: null,
    reasoningTokens: null, costUsd: null, record: JSON.stringify({ id, pad: 'x'.repeat(800) }), dropIfChatChildStored: false, ...extra,
  };
}

/** A chat span as the OTLP path stores it: its id derives from trace and span id. */
function chat(spanId: string, parentSpanId: string | null): EventRow {
  return row(spanEventId('T1', spanId), { action: 'model.invoked', traceId: 'T1', spanId, parentSpanId, inputTokens: 100, outputTokens: 10, dropIfChatChildStored: true });
}

const rows = (n: number, prefix: string, extra: Partial<EventRow> = {}) => Array.from({ length: n }, (_, i) => row(`${prefix}-${i}`, extra));

describe('chat wrapper dedup does not depend on arrival order', () => {
  const modelCalls = (log: EventLog) => (log.db.prepare("SELECT span_id AS s, input_tokens AS t FROM events WHERE action = 'model.invoked'").all() as { s: string; t: number }[]);

  for (const order of [['child', 'parent'], ['parent', 'child'], ['parent', 'child', 'parent', 'child']] as const) {
    it(`${order.join(' then ')}: only the child's model call is counted`, () => {
      const log = EventLog.open(join(tempDir(), 'e.db'));
      for (const which of order) log.append([which === 'child' ? chat('C', 'P') : chat('P', 'ROOT')]);
      assert.deepEqual(modelCalls(log), [{ s: 'C', t: 100 }]);
      log.close();
    });
  }

  it('a group commit holding both exports (parent first) keeps only the child', () => {
    const log = EventLog.open(join(tempDir(), 'e.db'));
    const [a, b] = log.appendMany([[chat('P', 'ROOT')], [chat('C', 'P')]]);
    assert.deepEqual([a!.inserted, b!.inserted, b!.dropped], [1, 1, 1]);
    assert.deepEqual(modelCalls(log), [{ s: 'C', t: 100 }]);
    log.close();
  });
});

describe('retention', () => {
  it('judges age by when Beacon received an event, not by its own clock', () => {
    const path = join(tempDir(), 'e.db');
    let log = EventLog.open(path, { clock: () => NOW - 100n * DAY });
    log.append(rows(10, 'received-long-ago'));
    log.close();
    log = EventLog.open(path);
    log.append(rows(10, 'stamped-1970', { tsNs: 0n })); // a skewed client: received now
    const r = prune(log.db, { maxAgeDays: 90, maxBytes: 0 }, NOW);
    assert.equal(r.deletedByAge, 10);
    const left = log.db.prepare('SELECT id FROM events').all() as { id: string }[];
    assert.ok(left.length === 10 && left.every((x) => x.id.startsWith('stamped-1970')));
    log.close();
  });

  it('migrates a v2 log in place; its rows (no receive time) are judged by event time', () => {
    const path = join(tempDir(), 'e.db');
    EventLog.open(path).close();
    // Make it a v2 log as an older Beacon left it.
    const db = new Database(path);
    db.exec('DROP INDEX events_received; DROP INDEX events_legacy_ts; ALTER TABLE events DROP COLUMN received_ns; PRAGMA user_version = 2');
    const cols = 'id, ts_ns, harness, method, action, record';
    db.prepare(`INSERT INTO events (${cols}) VALUES ('old', ?, 'goose', 'otlp', 'tool.invoked', '{}'), ('young', ?, 'goose', 'otlp', 'tool.invoked', '{}')`).run(NOW - 100n * DAY, NOW - DAY);
    db.close();
    const log = EventLog.open(path);
    assert.equal(log.db.pragma('user_version', { simple: true }), STORE_SCHEMA_VERSION);
    log.append([row('new', { tsNs: 0n })]);
    const r = prune(log.db, { maxAgeDays: 90, maxBytes: 0 }, NOW);
    assert.equal(r.deletedByAge, 1);
    assert.deepEqual((log.db.prepare('SELECT id FROM events ORDER BY seq').all() as { id: string }[]).map((x) => x.id), ['young', 'new']);
    log.close();
  });

  it('deletes and vacuums in many short transactions, never one statement for the whole pass', () => {
    const path = join(tempDir(), 'e.db');
    const log = EventLog.open(path, { clock: () => NOW - 100n * DAY });
    for (let i = 0; i < 6; i++) log.append(rows(5000, `old${i}`));
    log.close();
    const before = statSync(path).size;
    const log2 = EventLog.open(path);
    log2.append(rows(100, 'new'));
    const r = prune(log2.db, { maxAgeDays: 90, maxBytes: 0 }, NOW);
    assert.equal(r.deletedByAge, 30000);
    assert.ok(r.steps > 10, `${r.steps} steps`);
    assert.ok(r.pagesVacuumed > 0 && (log2.db.pragma('freelist_count', { simple: true }) as number) === 0, 'every freed page given back');
    assert.ok(r.pagesVacuumed > r.steps, 'vacuum steps carry a page count');
    log2.close();
    assert.ok(statSync(path).size < before / 4, `file shrank: ${before} → ${statSync(path).size}`);
  });
});

describe('supervised writer and checkpointer threads', () => {
  const faults: string[] = [];
  const fault = (thread: string, content: string) => {
    const file = join(tempDir(), `fault-${thread}`);
    writeFileSync(file, content);
    process.env[`BEACON_TEST_FAULT_${thread}`] = file;
    faults.push(thread);
    return file;
  };
  afterEach(() => {
    for (const t of faults.splice(0)) delete process.env[`BEACON_TEST_FAULT_${t}`];
  });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('a writer that dies rejects what it held with 503 + Retry-After, then a new one takes the next append', async () => {
    fault('WRITER', '1:2'); // the first writer dies on its second batch
    const path = join(tempDir(), 'e.db');
    const writer = await EventLogWriter.start({ path, busyTimeoutMs: 1000 });
    assert.equal((await writer.append([row('a')])).inserted, 1);
    const held = await writer.append([row('b')]).then(() => 'stored', (e) => e);
    assert.equal(held.code, 'unavailable');
    assert.ok(held.retryAfterSeconds >= 1);
    assert.equal(writer.pending, 0, 'nothing left hanging');
    let h = healthReport({ writer, closing: false });
    assert.equal(h.body.threads.writer.state, 'restarting');
    assert.match(h.body.lastError!.message, /writer: writer thread exited with code 70/);
    // Within the backoff, appends are refused at once (never queued behind a dead thread).
    await assert.rejects(writer.append([row('c')]), (e: { code: string; retryAfterSeconds: number }) => e.code === 'unavailable' && e.retryAfterSeconds >= 1);
    assert.equal(h.httpStatus, 503, 'cannot store during the backoff');
    await sleep(300);
    assert.equal((await writer.append([row('b'), row('c')])).inserted, 2);
    h = healthReport({ writer, closing: false });
    assert.deepEqual([h.httpStatus, h.body.status, h.body.threads.writer.state, h.body.threads.writer.restarts], [200, 'ok', 'running', 1]);
    await writer.close();
    const log = EventLog.open(path);
    assert.equal(log.count(), 3);
    log.close();
  });

  it('a group commit that finds the log locked fails its exports together, not one busy timeout each', async () => {
    const path = join(tempDir(), 'e.db');
    const writer = await EventLogWriter.start({ path, busyTimeoutMs: 500 });
    await writer.append([row('warm')]);
    const holder = new Database(path);
    holder.exec('BEGIN IMMEDIATE'); // another writer (a hook) holds the log
    const t0 = performance.now();
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => writer.append([row(`busy${i}`)]).then(() => 'stored', (e) => e.code)));
    const ms = performance.now() - t0;
    holder.exec('ROLLBACK');
    holder.close();
    assert.deepEqual(outcomes, Array(8).fill('unavailable'));
    // Retried export by export, 8 exports waited 1 + 7 more busy timeouts (≥ 4 s); now one or two.
    assert.ok(ms < 2500, `${ms.toFixed(0)} ms for 8 exports`);
    assert.equal((await writer.append([row('after')])).inserted, 1);
    await writer.close();
  });

  it('a writer that keeps failing to start is reported failed (health 503) and calls onWriterGaveUp once', async () => {
    fault('WRITER', '5:0');
    let gaveUp = 0;
    const writer = await EventLogWriter.start({ path: join(tempDir(), 'e.db'), busyTimeoutMs: 1000, onWriterGaveUp: () => gaveUp++ });
    for (let i = 0; i < 5; i++) {
      await sleep(writer.writerThread.waitMs() + 10);
      await assert.rejects(writer.append([row(`x${i}`)]), /cannot start the event log writer/);
    }
    const h = healthReport({ writer, closing: false });
    assert.deepEqual([h.httpStatus, h.body.status, h.body.threads.writer.state, gaveUp], [503, 'unavailable', 'failed', 1]);
    await sleep(writer.writerThread.waitMs() + 10);
    assert.equal((await writer.append([row('after')])).inserted, 1, 'still retried at the capped backoff');
    assert.equal(healthReport({ writer, closing: false }).body.status, 'ok');
    await writer.close();
  });

  it('the checkpointer thread runs only under sustained load and retires when the WAL is quiet', async () => {
    const path = join(tempDir(), 'e.db');
    // ~830 bytes of record a row: 2,500 rows are 2 MiB
    const writer = await EventLogWriter.start({ path, busyTimeoutMs: 1000, checkpointerStartBytes: 2 * 1024 * 1024, checkpointerQuietMs: 300 });
    const state = () => writer.health().threads.checkpointer.state;
    const until = async (want: string, ms: number) => {
      for (const end = Date.now() + ms; state() !== want && Date.now() < end; ) await sleep(20);
      return state();
    };
    let maxWal = 0;
    const burst = async (batches: number, prefix: string) => {
      for (let i = 0; i < batches; i++) {
        await writer.append(rows(500, `${prefix}${i}`));
        if (existsSync(`${path}-wal`)) maxWal = Math.max(maxWal, statSync(`${path}-wal`).size);
      }
    };
    await burst(2, 'light'); // 1,000 rows: an agent's ordinary traffic
    await sleep(300);
    assert.equal(state(), 'idle', 'no checkpointer thread for light load');
    await burst(12, 'heavy');
    assert.equal(await until('running', 3000), 'running', 'sustained load starts it');
    assert.equal(await until('idle', 5000), 'idle', 'a quiet WAL retires it');
    await burst(12, 'again');
    assert.equal(await until('running', 3000), 'running', 'the next sustained load starts it again');
    const h = writer.health();
    assert.equal(h.threads.checkpointer.restarts, 0, 'retiring is no failure');
    assert.equal(h.lastError, undefined);
    assert.ok(maxWal < 12 * 1024 * 1024, `WAL peaked at ${(maxWal / 1048576).toFixed(1)} MB`);
    await writer.close();
    const log = EventLog.open(path);
    assert.equal(log.count(), 13_000);
    log.close();
  });

  it('while the checkpointer cannot run, the writer checkpoints itself and the WAL stays bounded', async () => {
    fault('CHECKPOINTER', '1000'); // every checkpointer start dies on its first tick
    const path = join(tempDir(), 'e.db');
    const writer = await EventLogWriter.start({ path, busyTimeoutMs: 1000 });
    let maxWal = 0;
    for (let i = 0; i < 60; i++) {
      await writer.append(rows(500, `b${i}`)); // ≈ 30 MB of records in all
      if (existsSync(`${path}-wal`)) maxWal = Math.max(maxWal, statSync(`${path}-wal`).size);
      if (i % 10 === 0) await sleep(120);
    }
    const h = healthReport({ writer, closing: false });
    assert.ok(h.body.threads.checkpointer.restarts >= 1, 'restarted on the next need');
    assert.match(h.body.threads.checkpointer.lastError!.message, /test fault/);
    if (h.body.threads.checkpointer.state !== 'running') assert.equal(h.body.status, 'degraded');
    assert.ok(maxWal < 12 * 1024 * 1024, `WAL peaked at ${(maxWal / 1048576).toFixed(1)} MB`);
    await writer.close();
  });
});
