import type { BeaconErrorCode } from '../model/errors';
import type { AppendResult } from './event-log';
import type { EventRow } from './row';

/** Messages between the collector's main thread and its SQLite writer thread. */
export type ToWriter =
  | { type: 'append'; id: number; rows: EventRow[] }
  | { type: 'close' };

export type FromWriter =
  | { type: 'ready' }
  | { type: 'open-failed'; error: WireError }
  | { type: 'appended'; id: number; result: AppendResult }
  | { type: 'append-failed'; id: number; error: WireError }
  | { type: 'closed' };

export interface WireError {
  code: BeaconErrorCode;
  message: string;
  retryAfterSeconds?: number;
}

export interface WriterInit {
  path: string;
  busyTimeoutMs: number;
}
