import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PruneResult, RetentionPolicy } from './retention';
import { ThreadSupervisor } from '../writer/thread-supervisor';

/**
 * The retention worker's supervision, for `/health`: one per process (the collector runs one
 * retention schedule). A pass that fails or whose thread dies is recorded here and the next pass
 * starts a fresh thread: a dead worker never leaves retention off.
 */
export const retentionSupervisor = new ThreadSupervisor('retention', 3);

/**
 * One retention pass in a short-lived worker thread, so deletes never run on the collector's event
 * loop. Settles on every outcome — result, error, or a thread that exits without answering.
 */
export function pruneInWorker(path: string, policy: RetentionPolicy, busyTimeoutMs: number): Promise<PruneResult> {
  const sup = retentionSupervisor;
  return new Promise<PruneResult>((resolve, reject) => {
    let settled = false;
    const settle = (e: Error | undefined, r?: PruneResult) => {
      if (settled) return;
      settled = true;
      if (e) {
        sup.failed(e);
        reject(e);
      } else {
        sup.healthy();
        sup.stopped();
        resolve(r!);
      }
    };
    let w: Worker;
    try {
      w = new Worker(join(__dirname, `prune-worker${extname(__filename)}`), { workerData: { path, policy, busyTimeoutMs } });
    } catch (e) {
      settle(e as Error);
      return;
    }
    sup.started();
    w.once('message', (m: { ok: boolean; result?: PruneResult; error?: string }) => settle(m.ok ? undefined : new Error(m.error), m.result));
    w.once('error', (e) => settle(e));
    w.once('exit', (code) => settle(new Error(`retention worker exited with code ${code} before finishing its pass`)));
  });
}
