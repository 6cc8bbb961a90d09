/**
 * The collector's writer thread. It owns the only SQLite write connection of the daemon, so inserts
 * run on the second core while the main thread decodes the next export. Appends that queue up while
 * a transaction runs are committed together (group commit); if that transaction fails on bad data,
 * each is retried alone so that one bad export cannot fail the others — but not when the log is
 * locked or unwritable: every retry would wait another busy timeout for the same answer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isBeaconError } from '../../model/errors';
import { EventLog } from '../log/event-log';
import { takeTestFault } from './test-fault';
import type { FromWriter, Synchronous, ToWriter, WireError, WriterInit } from './protocol';

const port = parentPort!;
const init = workerData as WriterInit;
// Test-only: die (as a crash would) while opening the log (ARG 0 or none) or while holding the
// ARG-th batch, before committing it.
const fault = takeTestFault('WRITER');
let batchesUntilFault = fault === undefined ? Infinity : Number(fault) || 0;
if (batchesUntilFault <= 0) process.exit(70);

let log: EventLog;
const defaultSynchronous: Synchronous = init.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL';
let synchronous: Synchronous | undefined;
try {
  log = EventLog.open(init.path, { busyTimeoutMs: init.busyTimeoutMs });
  // The checkpointer thread checkpoints beside us (checkpoint-worker.ts); if it cannot run, the
  // parent turns auto-checkpoint back on, as the WAL's only other bound.
  log.db.pragma(`wal_autocheckpoint = ${init.autocheckpointPages ?? 0}`);
  log.db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  // The acknowledgement promises the export is stored: FULL makes that hold across a power loss too
  // (one WAL fsync per group commit; the bench measures its cost against NORMAL).
  setSynchronous(defaultSynchronous);
  send({ type: 'ready' });
} catch (e) {
  send({ type: 'open-failed', error: toWire(e) });
  process.exit(0);
}

let queue: Extract<ToWriter, { type: 'append' }>[] = [];
let scheduled = false;

port.on('message', (msg: ToWriter) => {
  if (msg.type === 'append') {
    queue.push(msg);
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  } else if (msg.type === 'autocheckpoint') {
    log.db.pragma(`wal_autocheckpoint = ${msg.pages}`);
  } else if (msg.type === 'close') {
    drain();
    log.close();
    send({ type: 'closed' });
    port.close();
  }
});

function drain(): void {
  scheduled = false;
  const batch = queue;
  queue = [];
  if (batch.length === 0) return;
  if (--batchesUntilFault <= 0) process.exit(70);
  // A group commit is as durable as its most demanding append: FULL if any export asks for it.
  const level: Synchronous = batch.some((m) => (m.synchronous ?? defaultSynchronous) === 'FULL') ? 'FULL' : 'NORMAL';
  let groupError: unknown;
  try {
    setSynchronous(level);
    const results = log.appendMany(batch.map((m) => m.rows));
    batch.forEach((m, i) => send({ type: 'appended', id: m.id, result: results[i]!, synchronous: level }));
    return;
  } catch (e) {
    groupError = e;
  }
  const wire = toWire(groupError);
  if (batch.length === 1 || wire.code === 'unavailable') {
    for (const m of batch) send({ type: 'append-failed', id: m.id, error: wire });
    return;
  }
  for (const m of batch) {
    try {
      // the level actually in force (setting it may be what failed)
      send({ type: 'appended', id: m.id, result: log.append(m.rows), synchronous: synchronous ?? defaultSynchronous });
    } catch (e) {
      send({ type: 'append-failed', id: m.id, error: toWire(e) });
    }
  }
}

/** The pragma applies from the next commit on; set only when it changes (it is one statement). */
function setSynchronous(level: Synchronous): void {
  if (synchronous === level) return;
  log.db.pragma(`synchronous = ${level}`);
  synchronous = level;
}

function send(msg: FromWriter): void {
  port.postMessage(msg);
}

function toWire(e: unknown): WireError {
  if (isBeaconError(e)) return { code: e.code, message: e.message, retryAfterSeconds: e.retryAfterSeconds };
  return { code: 'internal', message: (e as Error).message };
}
