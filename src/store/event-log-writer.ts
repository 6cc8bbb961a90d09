import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BeaconError } from '../model/errors';
import type { AppendResult } from './event-log';
import type { EventRow } from './row';
import type { FromWriter, ToWriter, WriterInit } from './writer-protocol';

/**
 * The main-thread side of the writer thread: `append` resolves once the rows are committed,
 * so the collector replies to an export only after its events are durable in the log.
 */
export class EventLogWriter {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: AppendResult) => void; reject: (e: Error) => void }>();
  private closed?: Promise<void>;

  private constructor(worker: Worker) {
    this.worker = worker;
  }

  static start(init: WriterInit): Promise<EventLogWriter> {
    // Under tsx (tests) this module is .ts and so is the worker; compiled, both are .js.
    const file = join(__dirname, `writer-worker${extname(__filename)}`);
    const worker = new Worker(file, { workerData: init });
    return new Promise((resolve, reject) => {
      const onFirst = (msg: FromWriter) => {
        if (msg.type === 'ready') {
          const w = new EventLogWriter(worker);
          worker.on('message', (m: FromWriter) => w.onMessage(m));
          worker.on('error', (e) => w.failAll(e));
          resolve(w);
        } else if (msg.type === 'open-failed') {
          void worker.terminate();
          reject(new BeaconError(msg.error.code, msg.error.message));
        }
      };
      worker.once('message', onFirst);
      worker.once('error', reject);
    });
  }

  /** Exports handed to the writer and not yet committed. */
  get pending(): number {
    return this.waiting.size;
  }

  append(rows: EventRow[]): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new BeaconError('unavailable', 'the collector is shutting down', { retryAfterSeconds: 1 }));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'append', id, rows } satisfies ToWriter);
    });
  }

  /** Commits everything already handed over, then closes the database. */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.worker.on('message', (m: FromWriter) => {
        if (m.type === 'closed') void this.worker.terminate().then(() => resolve());
      });
      this.worker.once('exit', () => resolve());
      this.worker.postMessage({ type: 'close' } satisfies ToWriter);
    });
    return this.closed;
  }

  private onMessage(msg: FromWriter): void {
    if (msg.type !== 'appended' && msg.type !== 'append-failed') return;
    const w = this.waiting.get(msg.id);
    if (!w) return;
    this.waiting.delete(msg.id);
    if (msg.type === 'appended') w.resolve(msg.result);
    else w.reject(new BeaconError(msg.error.code, msg.error.message, { retryAfterSeconds: msg.error.retryAfterSeconds }));
  }

  private failAll(e: Error): void {
    for (const w of this.waiting.values()) w.reject(new BeaconError('unavailable', `event log writer failed: ${e.message}`, { retryAfterSeconds: 1 }));
    this.waiting.clear();
  }
}
