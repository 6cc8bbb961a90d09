import { BeaconError, isBeaconError } from '../model/errors';
import { EventLog, type AppendResult } from '../store/log/event-log';
import type { EventRow } from '../store/log/row';
import type { EventSink } from './sink';
import { BadSegment, readSegment, removeSegment, setAside, spoolRows, spoolSegments } from './spool';

export interface DirectSinkOptions {
  /** how long one append may wait for the log's write lock before its rows go to the spool */
  busyTimeoutMs?: number;
  /** spool segments a successful append also commits, at most (bounds the time a hook spends on others' rows) */
  drainSegments?: number;
}

export interface DirectAppendResult extends AppendResult {
  /** rows put in the spool because the log's lock was not free within the budget */
  spooled: number;
  /** rows from earlier spool segments this append committed too */
  drained: number;
}

/**
 * A sink for writers outside the daemon (hooks, the stream adapter): appends straight into the
 * shared SQLite log with its own connection, which never runs an auto-checkpoint (that could copy
 * a large WAL while goose waits). When the lock is not free within the budget (the collector or
 * maintenance holding it), the rows go to the spool instead and the append still succeeds: nothing
 * is dropped, nobody waits longer than the budget. A later successful append commits what earlier
 * ones spooled.
 */
export class DirectLogSink implements EventSink {
  readonly path: string;
  private readonly busyTimeoutMs: number;
  private readonly drainSegments: number;
  private log?: EventLog;

  constructor(path: string, options: DirectSinkOptions = {}) {
    this.path = path;
    this.busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    this.drainSegments = options.drainSegments ?? 8;
  }

  /** Opens (or creates) the log now, so a foreign or unwritable file is reported before the first event. */
  open(): this {
    this.log ??= EventLog.open(this.path, { busyTimeoutMs: this.busyTimeoutMs, hookConnection: true });
    return this;
  }

  async append(rows: EventRow[]): Promise<DirectAppendResult> {
    return this.appendSync(rows);
  }

  /** The log this sink writes, opened: for what a hook reads beside its append (a session's directory). */
  eventLog(): EventLog {
    return this.open().log!;
  }

  /** The same, synchronously (better-sqlite3 is synchronous; the hook path has nothing else to do meanwhile). `tell`: see EventLog.append. */
  appendSync(rows: EventRow[], tell = false): DirectAppendResult {
    let result: AppendResult;
    try {
      result = this.open().log!.append(rows, tell);
    } catch (e) {
      if (!isLockTrouble(e)) throw e;
      try {
        spoolRows(this.path, rows);
      } catch (s) {
        throw new BeaconError('unavailable', `${(e as Error).message}; spooling failed too: ${(s as Error).message}`, { cause: e });
      }
      return { inserted: 0, duplicates: 0, dropped: 0, spooled: rows.length, drained: 0 };
    }
    return { ...result, spooled: 0, drained: this.drain() };
  }

  /**
   * Commits up to `drainSegments` spool segments. Best effort: it never fails the append that
   * triggered it (those rows are committed already); a segment it cannot commit stays for the
   * next writer or the collector, and the first failure ends the pass.
   */
  drain(max = this.drainSegments): number {
    let drained = 0;
    for (const segment of spoolSegments(this.path).slice(0, max)) {
      let rows: EventRow[];
      try {
        rows = readSegment(segment);
      } catch (e) {
        if (e instanceof BadSegment) setAside(segment);
        continue; // vanished (another drainer took it) or set aside
      }
      try {
        this.open().log!.append(rows);
        removeSegment(segment);
      } catch {
        break;
      }
      drained += rows.length;
    }
    return drained;
  }

  close(): void {
    this.log?.close();
    this.log = undefined;
  }
}

/** The lock was not free within the budget (SQLITE_BUSY / SQLITE_LOCKED): the rows can be written later. */
export function isLockTrouble(e: unknown): boolean {
  if (!isBeaconError(e) || e.code !== 'unavailable') return false;
  const code = (e.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}
