/** Runs retention off the collector's event loop: one pass, then exits. */
import { parentPort, workerData } from 'node:worker_threads';
import { EventLog } from '../log/event-log';
import { prune, type RetentionPolicy } from './retention';
import { takeTestFault } from '../writer/test-fault';

const { path, policy, busyTimeoutMs } = workerData as { path: string; policy: RetentionPolicy; busyTimeoutMs: number };
if (takeTestFault('RETENTION') !== undefined) process.exit(3);
try {
  const log = EventLog.open(path, { busyTimeoutMs });
  try {
    parentPort!.postMessage({ ok: true, result: prune(log.db, policy, BigInt(Date.now()) * 1_000_000n) });
  } finally {
    log.close();
  }
} catch (e) {
  parentPort!.postMessage({ ok: false, error: (e as Error).message });
}
