import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BeaconError } from '../model/errors';
import { EventLog, type AppendResult } from './event-log';
import type { EventRow } from './row';
import type { FromWriter, ToWriter, WriterInit } from './writer-protocol';

export interface WriterOptions extends WriterInit {
  /** retire the writer and checkpointer threads after this long without exports (idle memory) */
  idleMs?: number;
  /** checkpoint once the WAL reaches this size */
  checkpointWalBytes?: number;
}

/**
 * The main-thread side of the event log: `append` resolves once the rows are committed, so the
 * collector replies to an export only after its events are durable in the log.
 *
 * Writes run on a writer thread (the second core) with a checkpointer thread beside it. Both start
 * with the first export and retire after `idleMs` without one, so an idle collector holds neither.
 */
export class EventLogWriter {
  private readonly options: Required<WriterOptions>;
  private threads?: Promise<{ writer: Worker; checkpointer: Worker }>;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: AppendResult) => void; reject: (e: Error) => void }>();
  private idleTimer?: NodeJS.Timeout;
  private closing = false;
  /** how many times the threads were started (for tests and the health endpoint) */
  starts = 0;

  private constructor(options: Required<WriterOptions>) {
    this.options = options;
  }

  /** Checks (or creates) the log now, so a foreign or newer file fails the start, not the first export. */
  static async start(options: WriterOptions): Promise<EventLogWriter> {
    EventLog.open(options.path, { busyTimeoutMs: options.busyTimeoutMs }).close();
    return new EventLogWriter({ idleMs: 30_000, checkpointWalBytes: 4 * 1024 * 1024, ...options });
  }

  /** Exports handed to the writer and not yet committed. */
  get pending(): number {
    return this.waiting.size;
  }

  get running(): boolean {
    return this.threads !== undefined;
  }

  async append(rows: EventRow[]): Promise<AppendResult> {
    if (this.closing) throw new BeaconError('unavailable', 'the collector is shutting down', { retryAfterSeconds: 1 });
    const id = this.nextId++;
    const result = new Promise<AppendResult>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    clearTimeout(this.idleTimer);
    try {
      const { writer } = await this.ensureThreads();
      writer.postMessage({ type: 'append', id, rows } satisfies ToWriter);
    } catch (e) {
      this.waiting.delete(id);
      throw e;
    }
    return result;
  }

  /** Commits everything already handed over, then closes the database. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.idleTimer);
    await this.stopThreads();
  }

  private ensureThreads(): Promise<{ writer: Worker; checkpointer: Worker }> {
    this.threads ??= this.spawn().catch((e) => {
      this.threads = undefined;
      throw e;
    });
    return this.threads;
  }

  private async spawn(): Promise<{ writer: Worker; checkpointer: Worker }> {
    this.starts++;
    // Under tsx (tests) these modules are .ts and so are the workers; compiled, all are .js.
    const ext = extname(__filename);
    const writer = new Worker(join(__dirname, `writer-worker${ext}`), { workerData: { path: this.options.path, busyTimeoutMs: this.options.busyTimeoutMs } satisfies WriterInit });
    await new Promise<void>((resolve, reject) => {
      writer.once('message', (msg: FromWriter) => {
        if (msg.type === 'ready') resolve();
        else if (msg.type === 'open-failed') reject(new BeaconError(msg.error.code, msg.error.message, { retryAfterSeconds: 1 }));
      });
      writer.once('error', reject);
    });
    writer.on('message', (m: FromWriter) => this.onMessage(m));
    writer.on('error', (e) => this.failAll(e));
    const checkpointer = new Worker(join(__dirname, `checkpoint-worker${ext}`), {
      workerData: { path: this.options.path, walBytes: this.options.checkpointWalBytes, restartBytes: 64 * this.options.checkpointWalBytes, intervalMs: 100 },
    });
    checkpointer.on('error', () => {
      /* checkpoints are an optimization; SQLite checkpoints on close regardless */
    });
    return { writer, checkpointer };
  }

  private async stopThreads(): Promise<void> {
    const threads = this.threads;
    if (!threads) return;
    this.threads = undefined;
    const { writer, checkpointer } = await threads;
    const closed = (w: Worker) =>
      new Promise<void>((resolve) => {
        w.on('message', (m: { type: string }) => m.type === 'closed' && resolve());
        w.once('exit', () => resolve());
      });
    const done = Promise.all([closed(writer), closed(checkpointer)]);
    writer.postMessage({ type: 'close' } satisfies ToWriter);
    checkpointer.postMessage({ type: 'close' });
    await done;
    await Promise.all([writer.terminate(), checkpointer.terminate()]);
  }

  private onMessage(msg: FromWriter): void {
    if (msg.type !== 'appended' && msg.type !== 'append-failed') return;
    const w = this.waiting.get(msg.id);
    if (!w) return;
    this.waiting.delete(msg.id);
    if (msg.type === 'appended') w.resolve(msg.result);
    else w.reject(new BeaconError(msg.error.code, msg.error.message, { retryAfterSeconds: msg.error.retryAfterSeconds }));
    if (this.waiting.size === 0 && !this.closing) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => {
        if (this.waiting.size === 0) void this.stopThreads();
      }, this.options.idleMs);
      this.idleTimer.unref();
    }
  }

  private failAll(e: Error): void {
    for (const w of this.waiting.values()) w.reject(new BeaconError('unavailable', `event log writer failed: ${e.message}`, { retryAfterSeconds: 1 }));
    this.waiting.clear();
  }
}
