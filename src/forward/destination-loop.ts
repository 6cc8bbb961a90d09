import type { ForwardDestination } from './registry';
import type { EventLog, StoredRow } from '../store/log/event-log';
import type { ForwardCursors } from '../store/maintenance/forward-cursors';
import type { Outcome } from './outcome';
import { backoffMs } from './retry';
import type { DestinationState } from './status';

export interface Sender {
  send(rows: readonly StoredRow[]): Promise<Outcome>;
  close(): void;
}

/** How long a paused destination (a refusal such as 401/403/404) waits before it tries again. */
const PAUSED_PROBE_MS = 5 * 60_000;
const POLL_MS = 200;

/**
 * One destination: reads committed events after its cursor, in commit order, sends them in batches
 * and moves the cursor only once the receiver acknowledged a batch. A crash, a kill -9 or an outage
 * therefore resumes exactly at the first unacknowledged event (at-least-once).
 */
export class DestinationLoop {
  readonly state: DestinationState;
  private stopped = false;
  private wake?: () => void;
  /** the batch limit; halved on 413, grown back after successes */
  private batchLimit: number;
  private unsaved = false;

  constructor(
    private readonly dest: ForwardDestination,
    private readonly log: EventLog,
    private readonly cursors: ForwardCursors,
    private readonly sender: Sender,
    cursor: bigint,
  ) {
    this.batchLimit = dest.maxBatchRecords;
    this.state = {
      name: dest.name, type: dest.type, state: 'idle', cursor,
      forwarded: 0, rejected: 0, retries: 0, lastSuccessAt: null, lastError: null,
    };
  }

  async run(): Promise<void> {
    let firstSeenAt: number | undefined;
    let attempt = 0;
    while (!this.stopped) {
      if (!this.saveCursor()) {
        await this.sleep(1000);
        continue;
      }
      const rows = this.log.list({ afterSeq: this.state.cursor, order: 'seq', limit: this.batchLimit });
      if (rows.length === 0) {
        firstSeenAt = undefined;
        if (this.state.state === 'sending') this.state.state = 'idle';
        await this.sleep(POLL_MS);
        continue;
      }
      // A partial batch waits for more, up to batchDelayMs after its first event was seen.
      if (rows.length < this.batchLimit && attempt === 0) {
        firstSeenAt ??= Date.now();
        const wait = firstSeenAt + this.dest.batchDelayMs - Date.now();
        if (wait > 0) {
          await this.sleep(Math.min(POLL_MS, wait));
          continue;
        }
      }
      if (this.state.state !== 'retrying' && this.state.state !== 'paused') this.state.state = 'sending';
      const outcome = await this.sender.send(rows);
      const at = new Date().toISOString();
      if (outcome.kind === 'ack') {
        this.state.cursor = rows[rows.length - 1]!.seq;
        this.unsaved = true;
        this.saveCursor();
        this.state.forwarded += rows.length - outcome.rejected;
        this.state.rejected += outcome.rejected;
        this.state.lastSuccessAt = at;
        if (outcome.rejected > 0) this.state.lastError = { message: outcome.message, at };
        this.state.state = 'sending';
        this.batchLimit = Math.min(this.dest.maxBatchRecords, this.batchLimit * 2);
        attempt = 0;
        firstSeenAt = undefined;
        continue;
      }
      this.state.lastError = { message: outcome.message, at };
      if (outcome.kind === 'too_large' && rows.length > 1) {
        this.batchLimit = Math.max(1, Math.floor(rows.length / 2));
        continue;
      }
      if (outcome.kind === 'retry') {
        this.state.state = 'retrying';
        this.state.retries++;
        const delay = Math.max(outcome.retryAfterMs ?? 0, backoffMs(attempt++));
        await this.sleep(delay);
        continue;
      }
      // Refused (or a single event too large): stop sending, say why, try again much later.
      this.state.state = 'paused';
      attempt = 0;
      await this.sleep(PAUSED_PROBE_MS);
    }
  }

  /**
   * Persists the cursor. When the log is locked past the busy timeout the acknowledged position is
   * kept in memory and saved before the next batch: a crash meanwhile only repeats that batch.
   */
  private saveCursor(): boolean {
    if (!this.unsaved) return true;
    try {
      this.cursors.advance(this.dest.name, this.state.cursor);
      this.unsaved = false;
      return true;
    } catch (e) {
      this.state.lastError = { message: `cursor not saved yet: ${(e as Error).message}`, at: new Date().toISOString() };
      return false;
    }
  }

  /** Ends the loop after the attempt in flight (its acknowledgement is still recorded). */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = undefined;
        resolve();
      };
    });
  }
}
