/**
 * The collector's writer thread. It owns the only SQLite connection of the daemon, so inserts and
 * WAL checkpoints run on the second core while the main thread decodes the next export.
 * Appends that queue up while a transaction runs are committed together (group commit); if that
 * transaction fails, each is retried alone so that one bad export cannot fail the others.
 */
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { isBeaconError } from '../model/errors';
import { EventLog } from './event-log';
import type { FromWriter, ToWriter, WireError, WriterInit } from './writer-protocol';

const port = parentPort!;
const init = workerData as WriterInit;

let log: EventLog;
try {
  log = EventLog.open(init.path, { busyTimeoutMs: init.busyTimeoutMs });
  // The checkpointer thread does this beside us (checkpoint-worker.ts); the WAL is cut back after each reset.
  log.db.pragma('wal_autocheckpoint = 0');
  log.db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
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
  } else if (msg.type === 'close') {
    drain();
    log.close();
    send({ type: 'closed' });
    port.close();
  }
});

/**
 * In a gap between exports, the writer finishes the checkpoint itself: the checkpointer thread has
 * already copied nearly all frames, nothing new arrives meanwhile, so this PASSIVE pass completes and
 * the next transaction rewinds the WAL — without the RESTART stall that a busy writer would need.
 */
const REWIND_WAL_BYTES = 16 * 1024 * 1024;
function checkpointIfIdle(): void {
  if (queue.length > 0) return;
  try {
    if (statSync(`${init.path}-wal`).size < REWIND_WAL_BYTES) return;
    log.db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    /* no WAL yet, or busy: later */
  }
}

function drain(): void {
  scheduled = false;
  const batch = queue;
  queue = [];
  if (batch.length === 0) return;
  setImmediate(checkpointIfIdle);
  try {
    const results = log.appendMany(batch.map((m) => m.rows));
    batch.forEach((m, i) => send({ type: 'appended', id: m.id, result: results[i]! }));
  } catch {
    for (const m of batch) {
      try {
        send({ type: 'appended', id: m.id, result: log.append(m.rows) });
      } catch (e) {
        send({ type: 'append-failed', id: m.id, error: toWire(e) });
      }
    }
  }
}

function send(msg: FromWriter): void {
  port.postMessage(msg);
}

function toWire(e: unknown): WireError {
  if (isBeaconError(e)) return { code: e.code, message: e.message, retryAfterSeconds: e.retryAfterSeconds };
  return { code: 'internal', message: (e as Error).message };
}
