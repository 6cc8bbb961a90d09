/**
 * An import's rows skip the match query in a session no other path recorded (merge.ts
 * `onlyImported`, one question per session and transaction): still counted once when another
 * path's record of the session comes in the same batch, before them, or between two imports.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import type { EventRow } from '../../src/store/log/row';
import { tempDir } from '../helpers/paths';

const SECOND = 1_000_000_000n;

function call(id: string, method: 'otlp' | 'poll', tsNs: bigint, tokens: number): EventRow {
  return {
    id, tsNs, harness: 'codex', method, action: 'model.invoked', sessionId: 's1', traceId: null, spanId: null, parentSpanId: null,
    toolCallId: null, model: 'gpt-5', provider: 'openai', inputTokens: tokens, outputTokens: 2, cacheReadTokens: 0, cacheCreationTokens: 0,
    reasoningTokens: null, costUsd: null, record: JSON.stringify({ event: { id }, harness: { collection_method: method } }), mergeWithStored: method === 'poll', dropIfChatChildStored: false,
  };
}

describe('import rows merged per session', () => {
  it('an OTLP call earlier in the same batch as the import of its session still absorbs the imported copy', () => {
    const log = EventLog.open(join(tempDir(), 'e.db'));
    // the first imported row makes the session "import only"; the OTLP row after it must undo that
    const r = log.append([call('imp-a', 'poll', 100n * SECOND, 10), call('otlp-b', 'otlp', 200n * SECOND, 20), call('imp-b', 'poll', 201n * SECOND, 20)], true);
    assert.deepEqual(r.held, [false, false, true]);
    assert.equal(log.count(), 2);
    log.close();
  });

  it('an OTLP record stored between two imports is found by the second (a new transaction asks again)', () => {
    const log = EventLog.open(join(tempDir(), 'e.db'));
    log.append([call('imp-a', 'poll', 100n * SECOND, 10)], true);
    log.append([call('otlp-b', 'otlp', 200n * SECOND, 20)]);
    const r = log.append([call('imp-a', 'poll', 100n * SECOND, 10), call('imp-b', 'poll', 201n * SECOND, 20)], true);
    assert.deepEqual(r.held, [true, true], 'its own earlier record, then the OTLP one');
    assert.equal(log.count(), 2);
    const merged = log.list().map((x) => JSON.parse(x.record).event.merged_ids);
    assert.deepEqual(merged, [undefined, ['imp-b']]);
    log.close();
  });
});
