/**
 * The collector's checkpointer thread. The writer connection runs with auto-checkpoint off, because a
 * checkpoint (copying the WAL into the database and fsyncing it) inside the writer stalls every
 * export queued behind it. A PASSIVE checkpoint from this second connection runs beside the writer
 * without blocking it.
 *
 * PASSIVE alone is not enough under sustained load: new frames arrive while it copies, the WAL is
 * never completely copied at the moment a writer begins, so SQLite never rewinds it and it grows
 * without bound (4 GB in a 20 s benchmark). The writer completes the checkpoint in its idle gaps
 * (writer-worker.ts), which rewinds the WAL; only a writer saturated with no gap at all reaches
 * `restartBytes`, where a RESTART checkpoint holds writers out to copy the frames PASSIVE left.
 * Either way the writer's journal_size_limit then trims the file.
 */
import Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

const { path, walBytes, restartBytes, intervalMs } = workerData as { path: string; walBytes: number; restartBytes: number; intervalMs: number };
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
  const size = walSize();
  if (size < walBytes) return;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    if (size >= restartBytes) db.pragma('wal_checkpoint(RESTART)');
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
