import { extname, join } from 'node:path';
import type { Worker } from 'node:worker_threads';

/** Under tsx (tests) these modules are .ts and so are the workers; compiled, all are .js. */
export function workerFile(name: string): string {
  return join(__dirname, `${name}${extname(__filename)}`);
}

/** Asks a worker to finish (commit what it holds, close the database) and waits for it to end. */
export async function closeWorker(w: Worker): Promise<void> {
  const done = new Promise<void>((resolve) => {
    w.on('message', (m: { type: string }) => m.type === 'closed' && resolve());
    w.once('exit', () => resolve());
  });
  w.postMessage({ type: 'close' });
  await done;
  await w.terminate();
}
