/**
 * Issue 32: `codex exec --json` names a tool call by its item (`item_N`), Codex's OTLP export by the
 * model's call id. The store gives the stream's record the export's call id (stream-call-join.ts):
 * one row per call, whichever path arrives first, one to one. The real Codex stream parser and
 * record adapter, the real OTLP reader, a real SQLite log on disk.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toRows } from '../../src/ingest/rows';
import type { LogRecord } from '../../src/model/otlp-signals';
import type { NormalizedEvent } from '../../src/model/record';
import { codexStream, CodexStreamParser } from '../../src/sources/codex/stream-codex';
import { logEvents } from '../../src/sources/dispatch';
import { EventLog } from '../../src/store/log/event-log';
import { listJoined } from '../../src/store/queries/joined-events';
import type { ToolCallRow } from '../../src/store/queries/tool-calls';
import { tempDir } from '../helpers/paths';

const T0 = Date.parse('2026-12-02T10:00:00.000Z');
const MS = 1_000_000n;

interface Call { item: string; cmd: string; exit: number; atMs: number }

/** The stream's records of a run: each call started and completed at `atMs` after T0 (its reading time). */
function streamEvents(session: string, calls: Call[]): NormalizedEvent[] {
  let clock = T0;
  const parser = new CodexStreamParser({ now: () => new Date(clock) });
  const lines = [JSON.stringify({ type: 'thread.started', thread_id: session })];
  const out = parser.line(lines[0]!);
  for (const c of calls) {
    clock = T0 + c.atMs;
    const command = `/bin/bash -lc '${c.cmd}'`;
    out.push(...parser.line(JSON.stringify({ type: 'item.started', item: { id: c.item, type: 'command_execution', command, status: 'in_progress' } })));
    out.push(...parser.line(JSON.stringify({ type: 'item.completed', item: { id: c.item, type: 'command_execution', command, exit_code: c.exit, status: c.exit === 0 ? 'completed' : 'failed' } })));
  }
  out.push(...parser.end());
  return out.flatMap((ev) => codexStream.record(ev, { sessionId: session, runId: 'run-1' }) ?? []);
}

/** Codex's `codex.tool_result` of a call ending `endMs` after T0 that took `durationMs`. */
function otlpEvents(session: string, calls: Array<{ callId: string; cmd: string; exit: number; endMs: number; durationMs: number }>): NormalizedEvent[] {
  const records = calls.map((c) => ({
    timeUnixNano: BigInt(T0 + c.endMs) * MS, observedTimeUnixNano: BigInt(T0 + c.endMs) * MS, severityNumber: 9, severityText: '', body: '', traceId: '', spanId: '', eventName: '', flags: 0,
    resource: { 'service.name': 'codex_exec' },
    attributes: { 'event.name': 'codex.tool_result', 'conversation.id': session, tool_name: 'exec_command', call_id: c.callId, arguments: JSON.stringify({ cmd: c.cmd }), duration_ms: c.durationMs, success: String(c.exit === 0), output: `Process exited with code ${c.exit}\n` },
  }) as unknown as LogRecord);
  return logEvents(records).events;
}

function append(path: string, events: NormalizedEvent[]): void {
  const log = EventLog.open(path);
  log.append(toRows(events).rows);
  log.close();
}

/** each call of the session: its call id, the paths that saw it, failed */
function calls(path: string, session: string): Array<[string | null, string, boolean]> {
  const log = EventLog.open(path, { readonly: true });
  try {
    return listJoined(log, { sessionId: session }).filter((x): x is ToolCallRow => x.kind === 'tool_call').map((c) => [c.callId, [...c.seenBy].sort().join('+'), c.failed]);
  } finally {
    log.close();
  }
}

const LS = 'ls /tmp/x';
const TOUCH = 'touch /tmp/y && ls /nonexistent-dir';
const TWO_STREAM: Call[] = [{ item: 'item_1', cmd: LS, exit: 0, atMs: 100 }, { item: 'item_2', cmd: TOUCH, exit: 2, atMs: 300 }];
const TWO_OTLP = [{ callId: 'call_1', cmd: LS, exit: 0, endMs: 150, durationMs: 50 }, { callId: 'call_2', cmd: TOUCH, exit: 2, endMs: 350, durationMs: 50 }];

describe('Codex: the stream\'s tool call takes the call id of its OTLP record', () => {
  it('the stream first, then the export: each call is one row under the export\'s id', () => {
    const path = join(tempDir('stream-join-'), 'events.db');
    append(path, streamEvents('cx-1', TWO_STREAM));
    assert.deepEqual(calls(path, 'cx-1'), [['item_1', 'stream', false], ['item_2', 'stream', true]], 'before the export: the stream\'s own ids');
    append(path, otlpEvents('cx-1', TWO_OTLP));
    assert.deepEqual(calls(path, 'cx-1'), [['call_1', 'otlp+stream', false], ['call_2', 'otlp+stream', true]]);
  });

  it('the export first, then the stream read ten minutes after the run (the wide window): the same rows, and a replayed stream adds nothing', () => {
    const path = join(tempDir('stream-join-'), 'events.db');
    append(path, otlpEvents('cx-2', TWO_OTLP));
    const late = TWO_STREAM.map((c) => ({ ...c, atMs: c.atMs + 600_000 }));
    append(path, streamEvents('cx-2', late));
    assert.deepEqual(calls(path, 'cx-2'), [['call_1', 'otlp+stream', false], ['call_2', 'otlp+stream', true]]);
    append(path, streamEvents('cx-2', late));
    const log = EventLog.open(path, { readonly: true });
    const stored = log.db.prepare("SELECT tool_call_id AS id, json_extract(record, '$.raw.stream_item') AS item FROM events WHERE method = 'stream' AND tool_call_id IS NOT NULL ORDER BY seq").all();
    log.close();
    assert.deepEqual(stored, [{ id: 'call_1', item: 'item_1' }, { id: 'call_2', item: 'item_2' }], 'stored once, the item id kept');
  });

  it('the same command three times, two in the export: two joined in order, the third stays its own row (either order)', () => {
    const stream: Call[] = [0, 1, 2].map((i) => ({ item: `item_${i}`, cmd: LS, exit: 0, atMs: 1_000 * i }));
    const otlp = [0, 1].map((i) => ({ callId: `call_${i}`, cmd: LS, exit: 0, endMs: 1_000 * i + 400, durationMs: 400 }));
    for (const order of ['stream first', 'export first']) {
      const path = join(tempDir('stream-join-'), 'events.db');
      append(path, order === 'stream first' ? streamEvents('cx-3', stream) : otlpEvents('cx-3', otlp));
      append(path, order === 'stream first' ? otlpEvents('cx-3', otlp) : streamEvents('cx-3', stream));
      assert.deepEqual(calls(path, 'cx-3'), [['call_0', 'otlp+stream', false], ['call_1', 'otlp+stream', false], ['item_2', 'stream', false]], order);
    }
  });

  it('a provider that reuses call ids (call_1 each turn): each stream call takes its own OTLP record', () => {
    const stream: Call[] = [{ item: 'item_1', cmd: LS, exit: 0, atMs: 0 }, { item: 'item_5', cmd: LS, exit: 0, atMs: 60_000 }];
    const otlp = [{ callId: 'call_1', cmd: LS, exit: 0, endMs: 100, durationMs: 100 }, { callId: 'call_1', cmd: LS, exit: 0, endMs: 60_100, durationMs: 100 }];
    for (const order of ['stream first', 'export first']) {
      const path = join(tempDir('stream-join-'), 'events.db');
      append(path, order === 'stream first' ? streamEvents('cx-4', stream) : otlpEvents('cx-4', otlp));
      append(path, order === 'stream first' ? otlpEvents('cx-4', otlp) : streamEvents('cx-4', stream));
      const log = EventLog.open(path, { readonly: true });
      const joined = log.db.prepare("SELECT json_extract(record, '$.raw.stream_joined') AS holder FROM events WHERE method = 'stream' AND tool_call_id = 'call_1'").pluck().all();
      log.close();
      assert.equal(new Set(joined).size, 2, `${order}: two stream calls, two OTLP records (${JSON.stringify(joined)})`);
    }
  });

  it('a different command line, another session or one out of the window is not joined', () => {
    const path = join(tempDir('stream-join-'), 'events.db');
    append(path, streamEvents('cx-5', [{ item: 'item_1', cmd: LS, exit: 0, atMs: 0 }]));
    append(path, otlpEvents('cx-5', [{ callId: 'call_1', cmd: 'pwd', exit: 0, endMs: 50, durationMs: 10 }]));
    append(path, otlpEvents('cx-6', [{ callId: 'call_2', cmd: LS, exit: 0, endMs: 50, durationMs: 10 }]));
    append(path, otlpEvents('cx-5', [{ callId: 'call_3', cmd: LS, exit: 0, endMs: 7 * 3600_000, durationMs: 10 }]));
    assert.deepEqual(calls(path, 'cx-5'), [['item_1', 'stream', false], ['call_1', 'otlp', false], ['call_3', 'otlp', false]]);
  });
});
