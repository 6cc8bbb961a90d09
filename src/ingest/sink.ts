import type { AppendResult } from '../store/log/event-log';
import type { EventRow } from '../store/log/row';

export type { AppendResult } from '../store/log/event-log';
export type { EventRow } from '../store/log/row';

/**
 * Where rows go: the only way into the event log. Resolves once the rows are committed (or, for a
 * writer outside the daemon that could not get the lock in its budget, durably spooled); rejects
 * with a `BeaconError` the caller maps to its reply. A retry of the same rows adds nothing.
 *
 * Implemented by the collector's writer thread (`EventLogWriter`, checked where the collector builds
 * its receiver) and by `DirectLogSink`, for hooks and the stream adapter.
 */
export interface EventSink {
  append(rows: EventRow[]): Promise<AppendResult>;
}

/** A sink with a queue in front of it (the collector's writer thread): admission control reads its depth. */
export interface QueuedEventSink extends EventSink {
  /** appends handed over and not yet settled */
  readonly pending: number;
}
