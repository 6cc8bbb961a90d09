import { Worker } from 'node:worker_threads';
import { BeaconError } from '../../model/errors';
import { EventLog, type AppendResult } from '../log/event-log';
import type { EventRow } from '../log/row';
import { ThreadSupervisor, type ThreadError, type ThreadStatus } from './thread-supervisor';
import { AUTOCHECKPOINT_PAGES, Checkpointer } from './checkpointer';
import { closeWorker, workerFile } from './worker-files';
import type { FromWriter, Synchronous, ToWriter, WriterInit } from './protocol';

export interface WriterOptions extends WriterInit {
  /** retire the writer and checkpointer threads after this long without exports (idle memory) */
  idleMs?: number;
  /** once the WAL holds this much, the checkpointer rewinds it with a short RESTART checkpoint */
  checkpointRestartBytes?: number;
  /** record bytes within a minute that start the checkpointer thread (default 4 MiB: sustained load) */
  checkpointerStartBytes?: number;
  /** the checkpointer retires after the WAL has been quiet this long (default 30 s) */
  checkpointerQuietMs?: number;
  /**
   * Called once when the writer thread has failed this many times in a row (5, with backoff from
   * 250 ms to 4 s between starts): the collector cannot store and should exit non-zero, so that
   * its service manager restarts it (and a start-up check names the cause).
   */
  onWriterGaveUp?: (error: ThreadError) => void;
}

/** What `/health` reports of the writer side. */
export interface WriterHealth {
  threads: { writer: ThreadStatus; checkpointer: ThreadStatus };
  queue: { exports: number };
  /** the writer can take an append now (false while it backs off after a failure, or has given up) */
  canStore: boolean;
  checkpoints: { restarts: number; longestRestartMs: number };
  /** appends acknowledged after their commit fsynced the WAL (exports), and without (hook events) */
  acknowledged: { fsynced: number; unsynced: number };
  lastError?: ThreadError;
}

interface WriterThread {
  worker: Worker;
  generation: number;
  alive: boolean;
  /** closed on purpose: its exit is no failure */
  retiring: boolean;
}

interface Waiting {
  resolve: (r: AppendResult) => void;
  reject: (e: Error) => void;
  /** the writer thread the rows were handed to */
  generation?: number;
}

/**
 * The main-thread side of the event log: `append` resolves once the rows are committed, so the
 * collector replies to an export only after its events are durable in the log.
 *
 * Writes run on a writer thread (the second core), with a checkpointer thread beside it under
 * sustained load (src/store/writer/checkpointer.ts). The writer starts with the first export and
 * retires after `idleMs` without one, so an idle collector holds neither.
 * Both are supervised: when the writer dies, every append it held is rejected with 503 +
 * Retry-After (a client retry is idempotent) and the next append starts a new one after a backoff;
 * when the checkpointer dies, the writer checkpoints itself until a new checkpointer runs.
 */
export class EventLogWriter {
  private readonly options: Required<Omit<WriterOptions, 'onWriterGaveUp' | 'autocheckpointPages' | 'synchronous' | 'checkpointerStartBytes' | 'checkpointerQuietMs'>> &
    Pick<WriterOptions, 'onWriterGaveUp' | 'synchronous' | 'checkpointerStartBytes' | 'checkpointerQuietMs'>;
  private writer?: Promise<WriterThread>;
  private live?: WriterThread;
  private readonly checkpointer: Checkpointer;
  private generations = 0;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private idleTimer?: NodeJS.Timeout;
  private closing = false;
  private lastFailure?: ThreadError;
  private readonly acknowledged = { fsynced: 0, unsynced: 0 };
  readonly writerThread: ThreadSupervisor;
  /** how many times the writer thread was started (for tests and the health endpoint) */
  starts = 0;

  private constructor(options: EventLogWriter['options']) {
    this.options = options;
    this.writerThread = new ThreadSupervisor('writer', 5, (_name, error) => options.onWriterGaveUp?.(error));
    this.checkpointer = new Checkpointer({
      path: options.path,
      restartBytes: options.checkpointRestartBytes,
      startBytes: options.checkpointerStartBytes,
      quietMs: options.checkpointerQuietMs,
      onReady: () => this.tellWriter({ type: 'autocheckpoint', pages: 0 }),
      onGone: () => this.tellWriter({ type: 'autocheckpoint', pages: AUTOCHECKPOINT_PAGES }),
      onFailure: (sup, e) => this.noteFailure(sup, e),
    });
  }

  /** Checks (or creates) the log now, so a foreign or newer file fails the start, not the first export. */
  static async start(options: WriterOptions): Promise<EventLogWriter> {
    EventLog.open(options.path, { busyTimeoutMs: options.busyTimeoutMs }).close();
    // 15 min: long enough that a hook after a pause in a goose session finds the threads warm (docs/ARCHITECTURE.md)
    return new EventLogWriter({ idleMs: 15 * 60_000, checkpointRestartBytes: 32 * 1024 * 1024, ...options });
  }

  /** the event log file */
  get path(): string {
    return this.options.path;
  }

  /** Exports handed to the writer and not yet committed. */
  get pending(): number {
    return this.waiting.size;
  }

  get running(): boolean {
    return this.writer !== undefined;
  }

  health(): WriterHealth {
    return {
      threads: { writer: this.writerThread.snapshot, checkpointer: this.checkpointer.supervisor.snapshot },
      queue: { exports: this.waiting.size },
      canStore: !this.closing && this.writerThread.state !== 'failed' && this.writerThread.waitMs() === 0,
      checkpoints: { ...this.checkpointer.stats },
      acknowledged: { ...this.acknowledged },
      ...(this.lastFailure ? { lastError: { ...this.lastFailure } } : {}),
    };
  }

  /**
   * Commits `rows`; `synchronous` overrides the writer's durability for this append (hook events
   * ask for NORMAL, as the direct hook writer has: goose waits on them, an fsync each is felt).
   */
  async append(rows: EventRow[], options: { synchronous?: Synchronous } = {}): Promise<AppendResult> {
    if (this.closing) throw new BeaconError('unavailable', 'the collector is shutting down', { retryAfterSeconds: 1 });
    const wait = this.writerThread.waitMs();
    if (wait > 0) throw this.writerDown(wait);
    const id = this.nextId++;
    const result = new Promise<AppendResult>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    clearTimeout(this.idleTimer);
    let thread: WriterThread;
    try {
      thread = await this.ensureWriter();
      if (!thread.alive) throw this.writerDown(this.writerThread.waitMs());
    } catch (e) {
      this.settle(id)?.reject(e as Error);
      return result;
    }
    let bytes = 0;
    for (const r of rows) bytes += r.record.length;
    this.checkpointer.noteAppended(bytes);
    const w = this.waiting.get(id);
    if (!w) return result; // rejected meanwhile
    w.generation = thread.generation;
    thread.worker.postMessage({ type: 'append', id, rows, ...(options.synchronous ? { synchronous: options.synchronous } : {}) } satisfies ToWriter);
    return result;
  }

  /** Commits everything already handed over, then closes the database. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.idleTimer);
    await this.stopThreads();
  }

  private writerDown(waitMs: number): BeaconError {
    const why = this.writerThread.snapshot.lastError?.message ?? 'unknown error';
    const state = this.writerThread.state === 'failed' ? 'has failed repeatedly' : 'failed';
    return new BeaconError('unavailable', `the event log writer ${state} (${why}); retrying`, { retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) });
  }

  private settle(id: number): Waiting | undefined {
    const w = this.waiting.get(id);
    if (!w) return undefined;
    this.waiting.delete(id);
    return w;
  }

  private ensureWriter(): Promise<WriterThread> {
    this.writer ??= this.spawnWriter().catch((e) => {
      this.writer = undefined;
      this.noteFailure(this.writerThread, e);
      throw new BeaconError('unavailable', `cannot start the event log writer: ${(e as Error).message}`, { retryAfterSeconds: Math.max(1, Math.ceil(this.writerThread.waitMs() / 1000)) });
    });
    return this.writer;
  }

  private async spawnWriter(): Promise<WriterThread> {
    this.starts++;
    const generation = ++this.generations;
    const init: WriterInit = {
      path: this.options.path,
      busyTimeoutMs: this.options.busyTimeoutMs,
      synchronous: this.options.synchronous,
      autocheckpointPages: this.checkpointer.ready ? 0 : AUTOCHECKPOINT_PAGES,
    };
    const worker = new Worker(workerFile('writer-worker'), { workerData: init });
    await new Promise<void>((resolve, reject) => {
      const onExit = (code: number) => reject(new Error(`writer thread exited with code ${code} while opening the log`));
      worker.once('message', (msg: FromWriter) => {
        worker.off('exit', onExit);
        if (msg.type === 'ready') resolve();
        else if (msg.type === 'open-failed') reject(new BeaconError(msg.error.code, msg.error.message));
      });
      worker.once('error', reject);
      worker.once('exit', onExit);
    });
    const thread: WriterThread = { worker, generation, alive: true, retiring: false };
    this.live = thread;
    this.writerThread.started();
    worker.on('message', (m: FromWriter) => this.onMessage(m));
    // 'error' (an uncaught exception) is followed by 'exit': one failure, reported once, with the error's message.
    let error: Error | undefined;
    worker.on('error', (e) => (error = e));
    worker.on('exit', (code) => {
      thread.alive = false;
      if (this.live === thread) this.live = undefined;
      if (thread.retiring) {
        this.rejectGeneration(generation); // a retiring writer answered everything it held, unless it crashed while closing
        return;
      }
      if (this.writer !== undefined) this.writer = undefined;
      this.noteFailure(this.writerThread, error ?? new Error(`writer thread exited with code ${code}`));
      this.rejectGeneration(generation);
    });
    return thread;
  }

  private tellWriter(msg: ToWriter): void {
    if (this.live?.alive && !this.live.retiring) this.live.worker.postMessage(msg);
  }

  private noteFailure(sup: ThreadSupervisor, e: unknown): void {
    this.lastFailure = sup.failed(e);
    this.lastFailure = { message: `${sup.name}: ${this.lastFailure.message}`, at: this.lastFailure.at };
  }

  private rejectGeneration(generation: number): void {
    const err = this.writerDown(this.writerThread.waitMs());
    for (const [id, w] of this.waiting) {
      if (w.generation === generation) {
        this.settle(id);
        w.reject(err);
      }
    }
  }

  private async stopThreads(): Promise<void> {
    const pending = this.writer;
    this.writer = undefined;
    const stops: Promise<void>[] = [this.checkpointer.stop({ final: this.closing })];
    if (pending) {
      const thread = await pending.catch(() => undefined);
      if (thread?.alive) {
        thread.retiring = true;
        stops.push(closeWorker(thread.worker));
      }
      this.writerThread.stopped();
    }
    await Promise.all(stops);
  }

  private onMessage(msg: FromWriter): void {
    if (msg.type !== 'appended' && msg.type !== 'append-failed') return;
    const w = this.settle(msg.id);
    if (!w) return;
    if (msg.type === 'appended') {
      this.writerThread.healthy();
      this.acknowledged[msg.synchronous === 'FULL' ? 'fsynced' : 'unsynced']++;
      w.resolve(msg.result);
    } else {
      w.reject(new BeaconError(msg.error.code, msg.error.message, { retryAfterSeconds: msg.error.retryAfterSeconds }));
    }
    if (this.waiting.size === 0 && !this.closing) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => {
        if (this.waiting.size === 0) void this.stopThreads();
      }, this.options.idleMs);
      this.idleTimer.unref();
    }
  }
}
