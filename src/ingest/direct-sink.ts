import { EventLog, type AppendResult } from '../store/event-log';
import type { EventRow } from '../store/row';
import type { EventSink } from './sink';

export interface DirectSinkOptions {
  /** how long one append may wait for the log's write lock (a hook holds goose's turn meanwhile) */
  busyTimeoutMs?: number;
}

/**
 * A sink for writers outside the daemon (hooks, the stream adapter): appends straight into the
 * shared SQLite log with its own short-lived connection, which never runs an auto-checkpoint (that
 * could copy a large WAL while goose waits). The log is opened on first use, or by `open()`.
 */
export class DirectLogSink implements EventSink {
  readonly path: string;
  private readonly options: DirectSinkOptions;
  private log?: EventLog;

  constructor(path: string, options: DirectSinkOptions = {}) {
    this.path = path;
    this.options = options;
  }

  /** Opens (or creates) the log now, so a foreign or unwritable file is reported before the first event. */
  open(): this {
    this.log ??= EventLog.open(this.path, { ...(this.options.busyTimeoutMs !== undefined ? { busyTimeoutMs: this.options.busyTimeoutMs } : {}), hookConnection: true });
    return this;
  }

  async append(rows: EventRow[]): Promise<AppendResult> {
    return this.open().log!.append(rows);
  }

  close(): void {
    this.log?.close();
    this.log = undefined;
  }
}
