import type { BeaconErrorCode } from '../model/errors';
import type { AppendResult } from './event-log';
import type { EventRow } from './row';

/** Messages between the collector's main thread and its SQLite writer thread. */
export type ToWriter =
  | { type: 'append'; id: number; rows: EventRow[] }
  /** 0: the checkpointer thread bounds the WAL; > 0: it cannot, the writer checkpoints itself every N pages */
  | { type: 'autocheckpoint'; pages: number }
  | { type: 'close' };

export type FromWriter =
  | { type: 'ready' }
  | { type: 'open-failed'; error: WireError }
  | { type: 'appended'; id: number; result: AppendResult }
  | { type: 'append-failed'; id: number; error: WireError }
  | { type: 'closed' };

export type FromCheckpointer =
  | { type: 'ready' }
  /** a RESTART checkpoint (waiting for the lock included) took this long */
  | { type: 'restarted'; ms: number }
  | { type: 'closed' };

export interface WireError {
  code: BeaconErrorCode;
  message: string;
  retryAfterSeconds?: number;
}

export interface WriterInit {
  path: string;
  busyTimeoutMs: number;
  /**
   * FULL (default): each commit fsyncs the WAL before the export is acknowledged, so an acknowledged
   * export survives a power loss; NORMAL: it survives a crash of the process or kill -9 only.
   */
  synchronous?: 'NORMAL' | 'FULL';
  /** wal_autocheckpoint pages at start (0 while a checkpointer thread runs) */
  autocheckpointPages?: number;
}
