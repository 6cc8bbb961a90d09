import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hookEvents } from '../../src/sources/goose/hook-events';
import { DirectLogSink } from '../../src/ingest/direct-sink';
import { ingestEvents } from '../../src/ingest/ingest';
import { toRows } from '../../src/ingest/rows';
import { readSegment, spoolRows } from '../../src/ingest/spool';
import { newRecord } from '../../src/model/envelope';
import { SEMCONV_USAGE, disjointUsage } from '../../src/model/usage';
import type { NormalizedEvent } from '../../src/model/record';
import { EventLog } from '../../src/store/log/event-log';
import { GooseStreamParser } from '../../src/sources/goose/stream-json';
import { streamRecord } from '../../src/sources/goose/stream-record';
import { tempDir } from '../helpers/paths';

const NOW = 1787301000000000000n;
const hook = (sub: Parameters<typeof hookEvents>[0], payload: object) => hookEvents(sub, payload, { now: NOW, env: {} });

/** An event that cannot fit 64 KiB even stripped of its content (100 × 2 KiB finish reasons survive the slimming). */
function oversized(): NormalizedEvent {
  const record = newRecord({ timeUnixNano: NOW, action: 'model.invoked', category: 'model', id: 'too-big', harness: { name: 'goose', collection_method: 'otlp' }, message: 'x' });
  record.trace = { id: 'a'.repeat(32), span_id: 'b'.repeat(16) };
  record.gen_ai = { response: { finish_reasons: Array.from({ length: 100 }, (_, i) => `${i}${'r'.repeat(2040)}`) } };
  return { record, timeUnixNano: NOW };
}

describe('ingest stage: events → rows → sink', () => {
  it('marks each source event’s primary content, read off the record (prompt, diff, command, reasoning)', () => {
    const prompt = hook('prompt-submit', { session_id: 's', message: 'fix the test' });
    const edit = hook('post-tool', { session_id: 's', tool_call_id: 'c1', tool_name: 'edit', tool_input: { path: 'a.ts', before: 'a', after: 'b' } });
    const shell = hook('post-tool', { session_id: 's', tool_call_id: 'c2', tool_name: 'shell', tool_input: { command: 'make' } });
    const p = new GooseStreamParser();
    const reasoning = p.line(JSON.stringify({ type: 'message', message: { id: 'm', role: 'assistant', created: 1, content: [{ type: 'thinking', thinking: 'hmm' }] } }));
    const thought = [...reasoning, ...p.end()].map((e) => streamRecord(e)).filter((e) => e !== undefined);
    const { rows, rejected } = toRows([...prompt, ...edit, ...shell, ...thought]);
    assert.equal(rejected.length, 0);
    const markers = rows.map((r) => JSON.parse(r.record).content);
    const sha = (s: string) => require('node:crypto').createHash('sha256').update(s).digest('hex');
    assert.equal(markers[0].hash, sha('fix the test'));
    assert.equal(markers[1].hash, sha(JSON.parse(rows[1]!.record).file.diff));
    assert.equal(markers[2].hash, sha('make'));
    assert.equal(markers[3].hash, sha('hmm'));
  });

  it('redacts before the row exists, and counts what cannot be stored with why, storing the rest', async () => {
    const shell = hook('post-tool', { session_id: 's', tool_call_id: 'c3', tool_name: 'shell', tool_input: { command: 'curl -H "Authorization: Bearer abcdefghijklmnop" x' } });
    const path = join(tempDir(), 'events.db');
    const sink = new DirectLogSink(path);
    const r = await ingestEvents([...shell, oversized()], sink);
    assert.deepEqual({ inserted: r.inserted, duplicates: r.duplicates }, { inserted: 1, duplicates: 0 });
    assert.equal(r.rejected.length, 1);
    assert.equal(r.rejected[0]!.spanId, 'b'.repeat(16));
    assert.match(r.rejected[0]!.reason, /exceeds 65536 bytes/);
    // the same events again: the sink is idempotent, nothing is added
    const again = await ingestEvents(hook('post-tool', { session_id: 's', tool_call_id: 'c3', tool_name: 'shell', tool_input: { command: 'curl -H "Authorization: Bearer abcdefghijklmnop" x' } }), sink);
    assert.deepEqual({ inserted: again.inserted, duplicates: again.duplicates }, { inserted: 0, duplicates: 1 });
    sink.close();
    const log = EventLog.open(path, { readonly: true });
    const stored = log.list();
    log.close();
    assert.equal(stored.length, 1);
    assert.doesNotMatch(stored[0]!.record, /abcdefghijklmnop/);
  });

  it('disjoint usage: input is what is left after both cache buckets, never below zero; a negative cost is dropped', () => {
    assert.deepEqual(disjointUsage({ input: 2000, output: 50, cacheRead: 1500, cacheWrite: 100, costUsd: 0.01 }, SEMCONV_USAGE), {
      input_tokens: 400, output_tokens: 50, cache_read: { input_tokens: 1500 }, cache_creation: { input_tokens: 100 }, cost_usd: 0.01,
    });
    assert.equal(disjointUsage({ input: 10, cacheRead: 20 }, SEMCONV_USAGE)!.input_tokens, 0);
    assert.equal(disjointUsage({ output: 1, costUsd: -1 }, SEMCONV_USAGE)!.cost_usd, undefined);
    assert.equal(disjointUsage({}, SEMCONV_USAGE), undefined);
  });

  it('a spool segment gives back exactly the rows written, 64-bit times included (and any …Ns column the schema adds)', () => {
    const { rows } = toRows(hook('post-tool', { session_id: 's', tool_call_id: 'c9', tool_name: 'shell', tool_input: { command: 'make' } }));
    const row = { ...rows[0]!, tsNs: (1n << 62n) + 7n, receivedNs: 1787301000000000001n };
    const path = spoolRows(join(tempDir(), 'events.db'), [row, rows[0]!]);
    assert.deepEqual(readSegment(path), [row, rows[0]!]);
  });
});

