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
  close(): void;
}

/** A file's rows in one transaction at most this many: a long import never holds the lock for long. */
const BATCH = 2000;

/** The log itself, through the sink hooks and the stream adapter use (its lock budget, then the spool). */
export class LogTarget implements ImportTarget {
  readonly cursors: CursorStore;
  private readonly sink: DirectLogSink;
  private spooledRows = 0;

  constructor(path: string) {
    this.sink = new DirectLogSink(path).open();
    this.cursors = new ImportCursors(this.sink.eventLog().db);
  }

  async record(rows: EventRow[]): Promise<Recorded> {
    if (rows.length === 0) return { added: 0, held: [] };
    const held: boolean[] = [];
    for (let i = 0; i < rows.length; i += BATCH) {
      const batch = rows.slice(i, i + BATCH);
      const r = this.sink.appendSync(batch, true);
      this.spooledRows += r.spooled;
      // the append says which rows the log held (merged into them); spooled rows are asked as --dry-run asks
      held.push(...(r.spooled > 0 || !r.held ? this.sink.eventLog().holds(batch) : r.held));
    }
    return { added: held.filter((h) => !h).length, held };
  }

  spooled(): number {
    return this.spooledRows;
  }

  close(): void {
    this.sink.close();
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
