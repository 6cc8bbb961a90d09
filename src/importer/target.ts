import { DirectLogSink } from '../ingest/direct-sink';
import type { EventRow } from '../ingest/sink';
import type { EventLog } from '../store/log/event-log';
import { ImportCursors, type FileCursor } from '../store/log/import-cursors';

/** What became of a batch of rows: how many were new, and (when the target can tell) which the log held already. */
export interface Recorded {
  added: number;
  /** for each row, whether the log held it already (a target that cannot tell gives none) */
  held?: boolean[];
}

/** The cursors an import reads and (unless told not to) advances. */
export interface CursorStore {
  get(path: string): FileCursor | undefined;
  put(cursor: FileCursor): void;
}

/** Where an import's rows go, and its cursors. */
export interface ImportTarget {
  readonly cursors: CursorStore;
  record(rows: EventRow[]): Promise<Recorded>;
  /** rows spooled rather than committed (the log's lock was not free within the budget) */
  spooled(): number;
  /** commits what an open transaction holds (before the import yields to the event loop, and at its end) */
  flush?(): void;
  close(): void;
}

/** A file's rows in one transaction at most this many: a long import never holds the lock for long. */
const BATCH = 2000;
/** The page cache of a one-shot import's connection, in KiB (SQLite's default is 2,000). */
const IMPORT_CACHE_KIB = 64 * 1024;
/** With `batchFiles`, a transaction is committed once it is this old, whatever it holds. */
const HOLD_MS = 200;

/**
 * The log itself, through the sink hooks and the stream adapter use (its lock budget, then the spool).
 *
 * `batchFiles` (the one-shot `beacon import`): the rows of several files and their cursors share one
 * transaction, up to BATCH rows or HOLD_MS, instead of one per file and one per cursor. A commit
 * writes every page it changed to the WAL again, and the pages of the id index are touched at random:
 * a month's first import (40k events in 490 files) wrote a 303 MB WAL for a 93 MB log, and its inserts
 * cost 2.4 s of CPU; in 2,000-row transactions 131 MB and 1.6 s (a one-off A/B of the same rows).
 * A cursor then commits with the rows it covers. The transaction is committed before the import yields
 * to the event loop (`flush`), so it is held across the reading of a few files at most; when its lock
 * is not free within the budget, each append goes its own way as before (the spool).
 */
export class LogTarget implements ImportTarget {
  readonly cursors: CursorStore;
  private readonly sink: DirectLogSink;
  private spooledRows = 0;
  /** the open transaction's rows and when it began (batchFiles only) */
  private open?: { rows: number; sinceMs: number };

  constructor(path: string, private readonly options: { batchFiles?: boolean } = {}) {
    this.sink = new DirectLogSink(path).open();
    // A month's import inserts into indexes whose pages it touches all over (the random event ids):
    // past SQLite's default 2 MB of page cache each insert reads its pages again. 64 MB, for this
    // connection only: 200k rows of a 100k-call month written in 15.9 s of CPU instead of 18.7.
    if (options.batchFiles) this.sink.eventLog().db.pragma(`cache_size = ${-IMPORT_CACHE_KIB}`);
    const cursors = new ImportCursors(this.sink.eventLog().db);
    this.cursors = { get: (p) => cursors.get(p), put: (c) => (this.begin(), cursors.put(c)) };
  }

  async record(rows: EventRow[]): Promise<Recorded> {
    if (rows.length === 0) return { added: 0, held: [] };
    const held: boolean[] = [];
    for (let i = 0; i < rows.length; i += BATCH) {
      const batch = rows.slice(i, i + BATCH);
      this.begin();
      const r = this.sink.appendSync(batch, true); // inside an open transaction: a savepoint of it
      this.spooledRows += r.spooled;
      // the append says which rows the log held (merged into them); spooled rows are asked as --dry-run asks
      held.push(...(r.spooled > 0 || !r.held ? this.sink.eventLog().holds(batch) : r.held));
      if (this.open && (this.open.rows += batch.length) >= BATCH) this.flush();
    }
    if (this.open && Date.now() - this.open.sinceMs >= HOLD_MS) this.flush();
    return { added: held.filter((h) => !h).length, held };
  }

  /** Opens a transaction for the rows and cursors to come (batchFiles; none when the lock is not free within the budget). */
  private begin(): void {
    const db = this.sink.eventLog().db;
    if (!this.options.batchFiles || this.open || db.inTransaction) return;
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY')) return; // each append then waits, or spools, on its own
      throw e;
    }
    this.open = { rows: 0, sinceMs: Date.now() };
  }

  flush(): void {
    if (!this.open) return;
    this.open = undefined;
    const db = this.sink.eventLog().db;
    if (db.inTransaction) db.exec('COMMIT');
  }

  spooled(): number {
    return this.spooledRows;
  }

  close(): void {
    try {
      this.flush();
    } finally {
      this.sink.close();
    }
  }
}

/** Nothing written, cursors included: the log read only (a missing log holds nothing). */
export class DryRunTarget implements ImportTarget {
  readonly cursors: CursorStore;

  /** `log`: opened read-only, or undefined when there is none yet */
  constructor(private readonly log: EventLog | undefined) {
    const read = log ? new ImportCursors(log.db) : undefined;
    this.cursors = { get: (p) => read?.get(p), put: () => {} };
  }

  async record(rows: EventRow[]): Promise<Recorded> {
    const held = this.log ? this.log.holds(rows) : rows.map(() => false);
    return { added: held.filter((h) => !h).length, held };
  }

  spooled(): number {
    return 0;
  }

  close(): void {
    this.log?.close();
  }
}
