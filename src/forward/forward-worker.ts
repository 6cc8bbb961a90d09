/**
 * The forward worker thread: every destination's loop, off the collector's event loop, on its own
 * connection to the event log (reading events, writing cursors: a busy log never stalls ingest).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Secrets } from './destination';
import { DestinationLoop } from './destination-loop';
import { destinationType, type ForwardDestination } from './registry';
import { EventLog } from '../store/log/event-log';
import { ForwardCursors, lagAfter } from '../store/maintenance/forward-cursors';
import type { DestinationState, DestinationStatus } from './status';

export interface ForwardWorkerInit {
  logPath: string;
  busyTimeoutMs: number;
  destinations: ForwardDestination[];
  /** each destination's resolved credentials, by its name (only ever sent on the wire) */
  secrets: Record<string, Secrets>;
  retention: { maxAgeDays: number; maxBytes: number };
  statusIntervalMs: number;
}

export type FromForwardWorker =
  | { type: 'status'; destinations: DestinationStatus[] }
  | { type: 'stopped' };
export type ToForwardWorker = { type: 'stop' };

const init = workerData as ForwardWorkerInit;
// Like a hook's connection, ours never runs SQLite's auto-checkpoint on a cursor commit: the
// collector's checkpointer owns checkpoints (docs/ARCHITECTURE.md, "Checkpoints beside the writer").
const log = EventLog.open(init.logPath, { busyTimeoutMs: init.busyTimeoutMs, hookConnection: true });
const cursors = new ForwardCursors(log.db, init.logPath);
const start = cursors.open(init.destinations);
const loops = init.destinations.map((d) => {
  const sender = destinationType(d).sender(d, init.secrets[d.name] ?? {});
  return { loop: new DestinationLoop(d, log, cursors, sender, start.get(d.name)!), sender };
});
const running = loops.map(({ loop }) => loop.run());

function report(): void {
  const now = Date.now();
  const pageSize = log.db.pragma('page_size', { simple: true }) as number;
  const dataBytes = ((log.db.pragma('page_count', { simple: true }) as number) - (log.db.pragma('freelist_count', { simple: true }) as number)) * pageSize;
  const destinations = loops.map(({ loop }) => describe(loop.state, now, dataBytes));
  parentPort!.postMessage({ type: 'status', destinations } satisfies FromForwardWorker);
}

function describe(s: DestinationState, now: number, dataBytes: number): DestinationStatus {
  const lag = lagAfter(log.db, s.cursor);
  const oldestMs = lag.oldestNs === null ? now : Number(lag.oldestNs / 1_000_000n);
  const { maxAgeDays, maxBytes } = init.retention;
  let retention: DestinationStatus['retention'] = 'ok';
  if (lag.records > 0 && maxBytes > 0 && dataBytes >= 0.8 * maxBytes) retention = 'at-risk';
  else if (lag.records > 0 && maxAgeDays > 0 && now - oldestMs > maxAgeDays * 86_400_000) retention = 'holding';
  return {
    name: s.name, type: s.type, state: s.state,
    lagRecords: lag.records,
    lagSeconds: lag.records === 0 ? 0 : Math.max(0, Math.round((now - oldestMs) / 1000)),
    lastSuccessAt: s.lastSuccessAt, lastError: s.lastError,
    cursor: s.cursor.toString(), forwarded: s.forwarded, rejected: s.rejected, retries: s.retries,
    retention,
  };
}

const timer = setInterval(() => {
  try {
    report();
  } catch {
    /* a locked or busy log: the next tick reports */
  }
}, init.statusIntervalMs);
report();

parentPort!.on('message', (m: ToForwardWorker) => {
  if (m.type !== 'stop') return;
  for (const { loop } of loops) loop.stop();
  // The attempt in flight finishes (bounded by its timeout) so its acknowledgement is recorded.
  void Promise.allSettled(running).then(() => {
    clearInterval(timer);
    try {
      report();
    } catch {
      /* closing anyway */
    }
    for (const { sender } of loops) sender.close();
    log.close();
    parentPort!.postMessage({ type: 'stopped' } satisfies FromForwardWorker);
  });
});

// A loop that throws (the log became unreadable) ends the worker; the supervisor restarts it.
for (const r of running) r.catch((e) => setImmediate(() => { throw e; }));
