import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { EventLogWriter } from '../../src/store/writer/event-log-writer';
import type { EventRow } from '../../src/store/log/row';
import { tempDir } from '../helpers/paths';

function row(id: string, tsNs: bigint, extra: Partial<EventRow> = {}): EventRow {
  return {
    id, tsNs, harness: 'goose', method: 'otlp', action: 'model.invoked', sessionId: 's1', traceId: 't', spanId: id, parentSpanId: null,
    toolCallId: null, model: null, provider: null, inputTokens: 1, outputTokens: 2, cacheReadTokens: null, cacheCreationTokens: null,
    reasoningTokens: null, costUsd: null, record: JSON.stringify({ id }), dropIfChatChildStored: false, ...extra,
  };
}

describe('EventLog', () => {
  it('appends idempotently and lists in time order, with session, since and limit filters', () => {
    const log = EventLog.open(join(tempDir(), 'e.db'));
    assert.deepEqual(log.append([row('a', 30n), row('b', 10n), row('c', 20n, { sessionId: 's2' })]), { inserted: 3, duplicates: 0, dropped: 0 });
    assert.deepEqual(log.append([row('a', 30n), row('d', 40n)]), { inserted: 1, duplicates: 1, dropped: 0 });
    const ids = (rows: { record: string }[]) => rows.map((r) => JSON.parse(r.record).id);
    assert.deepEqual(ids(log.list()), ['b', 'c', 'a', 'd']);
    assert.deepEqual(ids(log.list({ sessionId: 's1' })), ['b', 'a', 'd']);
    assert.deepEqual(ids(log.list({ sinceNs: 20n })), ['c', 'a', 'd']);
    assert.deepEqual(ids(log.list({ limit: 2 })), ['a', 'd']);
    assert.equal(typeof log.list()[0]!.tsNs, 'bigint');
    log.close();
  });

  it('keeps nanosecond timestamps exact', () => {
    const log = EventLog.open(join(tempDir(), 'e.db'));
    log.append([row('x', 1796009437048942507n)]);
    assert.equal(log.list()[0]!.tsNs, 1796009437048942507n);
    log.close();
  });

  it('drops a chat span whose chat child is already stored (goose opt-in loop wrapper)', () => {
    const log = EventLog.open(join(tempDir(), 'e.db'));
    log.append([row('child', 1n, { traceId: 'T', spanId: 'C', parentSpanId: 'P' })]);
    const r = log.append([row('parent', 0n, { traceId: 'T', spanId: 'P', dropIfChatChildStored: true }), row('other', 2n, { traceId: 'T', spanId: 'O', dropIfChatChildStored: true })]);
    assert.deepEqual(r, { inserted: 1, duplicates: 0, dropped: 1 });
    log.close();
  });
});

describe('EventLogWriter', () => {
  it('commits through its threads, retires them when idle, and starts them again on the next export', async () => {
    const path = join(tempDir(), 'e.db');
    const writer = await EventLogWriter.start({ path, busyTimeoutMs: 1000, idleMs: 100 });
    assert.equal(writer.running, false, 'no threads before the first export');
    assert.deepEqual(await writer.append([row('a', 1n)]), { inserted: 1, duplicates: 0, dropped: 0 });
    assert.equal(writer.running, true);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(writer.running, false, 'retired after idleMs');
    assert.deepEqual(await writer.append([row('b', 2n), row('a', 1n)]), { inserted: 1, duplicates: 1, dropped: 0 });
    assert.equal(writer.starts, 2);
    await writer.close();
    await assert.rejects(writer.append([row('c', 3n)]), /shutting down/);
    const log = EventLog.open(path);
    assert.equal(log.count(), 2);
    log.close();
  });
});
