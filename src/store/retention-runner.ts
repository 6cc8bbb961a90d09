import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PruneResult, RetentionPolicy } from './retention';

/** One retention pass in a short-lived worker thread, so deletes never run on the collector's event loop. */
export function pruneInWorker(path: string, policy: RetentionPolicy, busyTimeoutMs: number): Promise<PruneResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(join(__dirname, `prune-worker${extname(__filename)}`), { workerData: { path, policy, busyTimeoutMs } });
    w.once('message', (m: { ok: boolean; result?: PruneResult; error?: string }) => (m.ok ? resolve(m.result!) : reject(new Error(m.error))));
    w.once('error', reject);
  });
}
