import type { BeaconErrorCode } from '../../model/errors';
import type { AppendResult } from '../log/event-log';
import type { EventRow } from '../log/row';

/** Messages between the collector's main thread and its SQLite writer thread. */
export type ToWriter =
  /** synchronous: this append's commit durability (absent: the writer's own, FULL by default) */
  | { type: 'append'; id: number; rows: EventRow[]; synchronous?: Synchronous }
  /** 0: the checkpointer thread bounds the WAL; > 0: it cannot, the writer checkpoints itself every N pages */
  | { type: 'autocheckpoint'; pages: number }
  | { type: 'close' };

export type FromWriter =
  | { type: 'ready' }
  | { type: 'open-failed'; error: WireError }
  /** synchronous: the durability the commit had (what /health counts) */
  | { type: 'appended'; id: number; result: AppendResult; synchronous: Synchronous }
  | { type: 'append-failed'; id: number; error: WireError }
  | { type: 'closed' };

export type FromCheckpointer =
  | { type: 'ready' }
  /** a RESTART checkpoint (waiting for the lock included) took this long */
  | { type: 'restarted'; ms: number }
  /** the WAL has been fully copied and unchanged for quietMs: load is over, the thread may retire */
  | { type: 'quiet' }
  | { type: 'closed' };

export interface WireError {
  code: BeaconErrorCode;
  message: string;
  retryAfterSeconds?: number;
}

/**
 * FULL: the commit fsyncs the WAL before it is acknowledged (survives a power loss); NORMAL: it
 * survives a crash of any process or kill -9, not a power loss since the last checkpoint.
 */
export type Synchronous = 'NORMAL' | 'FULL';

export interface WriterInit {
  path: string;
  busyTimeoutMs: number;
  /**
   * FULL (default): each commit fsyncs the WAL before the export is acknowledged, so an acknowledged
   * export survives a power loss; NORMAL: it survives a crash of the process or kill -9 only.
   */
  synchronous?: Synchronous;
  /** wal_autocheckpoint pages at start (0 while a checkpointer thread runs) */
  autocheckpointPages?: number;
}
