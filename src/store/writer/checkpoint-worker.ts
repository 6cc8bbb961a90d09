/**
 * The collector's checkpointer thread, started under sustained load and retired when the WAL has
 * been quiet for `quietMs` (checkpointer.ts). While it runs the writer has auto-checkpoint off, because
 * a checkpoint (copying the WAL into the database and fsyncing it) inside the writer stalls every
 * export queued behind it — a profile at saturation had the writer 31% in checkpoints. A PASSIVE
 * checkpoint from this second connection runs beside the writer without blocking it.
 *
 * PASSIVE alone does not bound the WAL under sustained load: frames keep arriving while it copies,
 * the WAL is never completely copied when the writer begins a transaction, so SQLite never rewinds
 * it. Once the WAL holds `restartBytes`, two PASSIVE passes copy nearly everything (the second only
 * what arrived during the first) and a RESTART then holds writers out just long enough to copy the
 * small remainder and rewind — a bounded stall (the longest is reported to the parent) instead of
 * one proportional to the WAL. When load stops, the last PASSIVE completes and the writer's next
 * transaction rewinds the WAL by itself; its journal_size_limit trims the file.
 */
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { takeTestFault } from './test-fault';
import type { FromCheckpointer } from './protocol';

const { path, restartBytes, intervalMs, restartWaitMs, quietMs } = workerData as { path: string; restartBytes: number; intervalMs: number; restartWaitMs: number; quietMs: number };
const port = parentPort!;
const db = new Database(path, { timeout: restartWaitMs });
const pageSize = db.pragma('page_size', { simple: true }) as number;
const fault = takeTestFault('CHECKPOINTER');
const send = (m: FromCheckpointer) => port.postMessage(m);
send({ type: 'ready' });

type Checkpoint = { busy: number; log: number; checkpointed: number };
const checkpoint = (mode: 'PASSIVE' | 'RESTART') => (db.pragma(`wal_checkpoint(${mode})`) as Checkpoint[])[0]!;

// Quiet: every frame copied and none added since the last tick (a new write rewinds or grows the WAL).
let last = { log: -1, checkpointed: -1 };
let quietSince = Date.now();
let saidQuiet = false;
const noteQuiet = (c: Checkpoint) => {
  const quiet = c.log === c.checkpointed && c.log === last.log && c.checkpointed === last.checkpointed;
  last = c;
  if (!quiet) quietSince = Date.now();
  else if (!saidQuiet && Date.now() - quietSince >= quietMs) {
    saidQuiet = true;
    send({ type: 'quiet' });
  }
};

const timer = setInterval(() => {
  if (fault !== undefined) throw new Error(`test fault: checkpointer killed (${fault})`);
  try {
    const first = checkpoint('PASSIVE');
    noteQuiet(first);
    if (first.log * pageSize < restartBytes) return;
    checkpoint('PASSIVE');
    const t0 = performance.now();
    // busy = 1: the writer or a reader kept it out within restartWaitMs; the next tick tries again
    if (checkpoint('RESTART').busy === 0) send({ type: 'restarted', ms: performance.now() - t0 });
  } catch {
    // busy: the next tick tries again
  }
}, intervalMs);

port.on('message', (msg: { type: string }) => {
  if (msg.type !== 'close') return;
  clearInterval(timer);
  try {
    checkpoint('PASSIVE');
  } catch {
    /* the last connection to close checkpoints anyway */
  }
  db.close();
  send({ type: 'closed' });
  port.close();
});
