import { Worker } from 'node:worker_threads';
import { ThreadSupervisor } from './thread-supervisor';
import { closeWorker, workerFile } from './worker-files';
import type { FromCheckpointer } from './protocol';

/** wal_autocheckpoint pages while no checkpointer thread runs (SQLite's default: about 4 MB of WAL). */
export const AUTOCHECKPOINT_PAGES = 1000;

export interface CheckpointerOptions {
  path: string;
  /** once the WAL holds this much, the checkpointer rewinds it with a short RESTART checkpoint */
  restartBytes: number;
  /** record bytes appended within one minute that start the thread (sustained load) */
  startBytes?: number;
  /** the thread retires after the WAL has been fully copied and unchanged this long */
  quietMs?: number;
  /** the checkpointer bounds the WAL now: the writer stops checkpointing itself */
  onReady: () => void;
  /** the checkpointer is gone (retired or dead): the writer checkpoints itself again */
  onGone: () => void;
  onFailure: (supervisor: ThreadSupervisor, e: unknown) => void;
}

interface Handle {
  worker: Worker;
  ready: boolean;
  retiring: boolean;
}

const WINDOW_MS = 60_000;

/**
 * The checkpointer thread, started on demand. Under light load (an agent's exports, hooks) the
 * writer's own auto-checkpoint every ~4 MB of WAL costs an occasional few milliseconds nobody feels,
 * and a second idle thread would cost ~10 MB of RSS all day (issue 25). Under sustained load
 * (4 MiB of records within a minute: at saturation that is a fraction of a second) a checkpoint
 * inside the writer would stall every export queued behind it, so the thread starts and takes them
 * over; it retires once the WAL has been quiet for `quietMs`, handing them back to the writer first.
 */
export class Checkpointer {
  readonly supervisor = new ThreadSupervisor('checkpointer');
  readonly stats = { restarts: 0, longestRestartMs: 0 };
  private handle?: Handle;
  private windowStart = 0;
  private windowBytes = 0;
  private closed = false;

  constructor(private readonly options: CheckpointerOptions) {}

  /** true while a checkpointer thread bounds the WAL (the writer then runs with auto-checkpoint off) */
  get ready(): boolean {
    return this.handle?.ready === true;
  }

  /** Counts an append's record bytes; sustained load (or a dead checkpointer due back) starts the thread. */
  noteAppended(bytes: number, now = Date.now()): void {
    if (now - this.windowStart > WINDOW_MS) {
      this.windowStart = now;
      this.windowBytes = 0;
    }
    this.windowBytes += bytes;
    const dueBack = this.supervisor.state === 'restarting' || this.supervisor.state === 'failed';
    if (this.windowBytes >= (this.options.startBytes ?? 4 * 1024 * 1024) || dueBack) this.start();
  }

  private start(): void {
    if (this.handle || this.closed || this.supervisor.waitMs() > 0) return;
    const { path, restartBytes, quietMs = 30_000 } = this.options;
    let worker: Worker;
    try {
      worker = new Worker(workerFile('checkpoint-worker'), { workerData: { path, restartBytes, intervalMs: 100, restartWaitMs: 200, quietMs } });
    } catch (e) {
      this.options.onFailure(this.supervisor, e);
      return;
    }
    const handle: Handle = { worker, ready: false, retiring: false };
    this.handle = handle;
    worker.on('message', (m: FromCheckpointer) => this.onMessage(handle, m));
    let error: Error | undefined;
    worker.on('error', (e) => (error = e));
    worker.on('exit', (code) => {
      if (this.handle === handle) this.handle = undefined;
      if (handle.retiring) return;
      // The WAL's other bound: the writer checkpoints after its own commits until a checkpointer runs again.
      this.options.onFailure(this.supervisor, error ?? new Error(`checkpointer thread exited with code ${code}`));
      this.options.onGone();
    });
  }

  private onMessage(handle: Handle, m: FromCheckpointer): void {
    if (m.type === 'ready') {
      handle.ready = true;
      this.supervisor.started();
      this.supervisor.healthy();
      this.options.onReady();
    } else if (m.type === 'restarted') {
      this.stats.restarts++;
      this.stats.longestRestartMs = Math.max(this.stats.longestRestartMs, m.ms);
    } else if (m.type === 'quiet' && this.handle === handle) {
      // Load is over: the writer takes the checkpoints back before this thread stops copying.
      this.options.onGone();
      void this.retire(handle);
      this.windowBytes = 0;
    }
  }

  private async retire(handle: Handle): Promise<void> {
    handle.retiring = true;
    if (this.handle === handle) this.handle = undefined;
    this.supervisor.stopped();
    await closeWorker(handle.worker);
  }

  /** Stops the thread (the collector is stopping or the writer retired); it may be started again. */
  async stop(options: { final?: boolean } = {}): Promise<void> {
    if (options.final) this.closed = true;
    this.windowBytes = 0;
    if (this.handle) await this.retire(this.handle);
  }
}
