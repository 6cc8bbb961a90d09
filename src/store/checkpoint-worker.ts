/**
 * The collector's checkpointer thread. The writer connection runs with auto-checkpoint off, because a
 * checkpoint (copying the WAL into the database and fsyncing it) inside the writer stalls every
 * export queued behind it. A PASSIVE checkpoint from this second connection runs beside the writer
 * without blocking it.
 */
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { path, walBytes, intervalMs } = workerData as { path: string; walBytes: number; intervalMs: number };
const db = new Database(path, { timeout: 1000 });
db.pragma('busy_timeout = 1000');

function walSize(): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

const timer = setInterval(() => {
  if (walSize() < walBytes) return;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // busy: the next tick tries again
  }
}, intervalMs);

parentPort!.on('message', (msg: { type: string }) => {
  if (msg.type !== 'close') return;
  clearInterval(timer);
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    /* the last connection to close checkpoints anyway */
  }
  db.close();
  parentPort!.postMessage({ type: 'closed' });
  parentPort!.close();
});
