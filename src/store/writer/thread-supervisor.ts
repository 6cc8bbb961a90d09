/**
 * The bookkeeping of one supervised worker thread (writer, checkpointer, retention): its state for
 * `/health`, how often it was restarted, its last error, and the backoff before the next start.
 * It starts nothing itself: the owner asks `waitMs()` on the next need and starts the thread then.
 */
export type ThreadState = 'idle' | 'running' | 'restarting' | 'failed';

export interface ThreadError {
  message: string;
  /** RFC 3339 */
  at: string;
}

export interface ThreadStatus {
  state: ThreadState;
  /** starts after the first one that followed a failure */
  restarts: number;
  lastError?: ThreadError;
}

/** Backoff after the n-th consecutive failure: 250 ms, 500 ms, 1 s … capped at 30 s. */
export function backoffMs(consecutiveFailures: number): number {
  return consecutiveFailures <= 0 ? 0 : Math.min(30_000, 250 * 2 ** (consecutiveFailures - 1));
}

export class ThreadSupervisor {
  private status: ThreadStatus = { state: 'idle', restarts: 0 };
  private consecutive = 0;
  private retryAt = 0;

  /**
   * @param giveUpAfter consecutive failures after which the thread is 'failed' (still retried at the
   *   capped backoff, so a transient cause heals; `onGiveUp` lets the owner decide to exit instead)
   */
  constructor(
    readonly name: string,
    private readonly giveUpAfter = 5,
    private readonly onGiveUp?: (name: string, error: ThreadError) => void,
  ) {}

  get snapshot(): ThreadStatus {
    return { ...this.status, ...(this.status.lastError ? { lastError: { ...this.status.lastError } } : {}) };
  }

  get state(): ThreadState {
    return this.status.state;
  }

  /** Milliseconds until the thread may be started again (0: now). */
  waitMs(now = Date.now()): number {
    return Math.max(0, this.retryAt - now);
  }

  /** The thread is up (after a failure, this counts as a restart). */
  started(): void {
    if (this.status.state === 'restarting' || this.status.state === 'failed') this.status.restarts++;
    this.status.state = 'running';
  }

  /** The thread did useful work: the failure streak is over. */
  healthy(): void {
    this.consecutive = 0;
    this.retryAt = 0;
  }

  /** Retired on purpose (idle, shutdown). */
  stopped(): void {
    if (this.status.state === 'running') this.status.state = 'idle';
  }

  /** The thread died, errored or could not start. */
  failed(e: unknown, now = Date.now()): ThreadError {
    const error: ThreadError = { message: e instanceof Error ? e.message : String(e), at: new Date(now).toISOString() };
    this.consecutive++;
    this.retryAt = now + backoffMs(this.consecutive);
    this.status.lastError = error;
    const gaveUp = this.consecutive >= this.giveUpAfter;
    const wasFailed = this.status.state === 'failed';
    this.status.state = gaveUp ? 'failed' : 'restarting';
    if (gaveUp && !wasFailed) this.onGiveUp?.(this.name, error);
    return error;
  }
}
