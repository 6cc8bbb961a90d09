import Database from 'better-sqlite3';
import { closeSync, constants } from 'node:fs';
import { dirname } from 'node:path';
import { BeaconError, isBeaconError } from '../../model/errors';
import { spanEventId } from '../../model/event-id';
import { ensurePrivateDir, openChecked } from '../../model/file-checks';
import { INSERT_EVENT_SQL, runInsert, selectList, type EventField, type Selected } from './columns';
import type { EventRow } from './row';
import { StoredCounterparts } from './merge';
import { StoredCallJoins } from './call-join';
import { StreamCallJoins } from './stream-call-join';
import { StoredPromptJoins } from './prompt-join';
import { StoredTurnEnds } from './turn-join';
import { checkReadable, ensureSchema } from './schema';
import { asStoreError, openDatabase } from './log-open';

export { asStoreError };

export interface AppendResult {
  inserted: number;
  /** already in the log (a retried export, a replayed hook): nothing written */
  duplicates: number;
  /** chat spans dropped because the model call they wrap is already stored */
  dropped: number;
  /** per row, whether it added nothing (already held, merged into its counterpart, or dropped) */
  held?: boolean[];
}

export interface OpenOptions {
  busyTimeoutMs?: number;
  readonly?: boolean;
  /** a short-lived writer (a hook): never runs an auto-checkpoint, which could copy a large WAL while goose waits */
  hookConnection?: boolean;
  /** when an append is received, ns since the epoch (tests stamp the past with it; retention judges age by it) */
  clock?: () => bigint;
}

const LISTED = ['seq', 'tsNs', 'record'] as const satisfies readonly EventField[];
/** `list`'s columns plus those a reader joins on without parsing the record (`listIndexed`). */
export const INDEXED = ['seq', 'tsNs', 'method', 'action', 'sessionId', 'harness', 'toolCallId', 'record'] as const satisfies readonly EventField[];

export type StoredRow = Selected<(typeof LISTED)[number]>;
export type IndexedRow = Selected<(typeof INDEXED)[number]>;

export interface ListFilter {
  sessionId?: string;
  /** exact column matches: the agent (harness.name), event.action, harness.collection_method, the tool call id, the model */
  harness?: string;
  action?: string;
  method?: string;
  toolCallId?: string;
  model?: string;
  sinceNs?: bigint;
  untilNs?: bigint;
  afterSeq?: bigint;
  /** the newest `limit` matching events (still returned oldest first); with order 'seq', the first `limit` */
  limit?: number;
  /** 'time' (default): event time; 'seq': commit order, for followers and exporters */
  order?: 'time' | 'seq';
}

const LIST_SQL = selectList(LISTED);
const INDEXED_SQL = selectList(INDEXED);

/**
 * The event log: one SQLite file in WAL mode, shared by the collector, every hook process and the
 * stream adapter. Writers serialize on SQLite's lock and wait up to `busyTimeoutMs` for each other.
 */
export class EventLog {
  readonly path: string;
  readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly chatChildExists: Database.Statement;
  private readonly deleteChatParent: Database.Statement;
  private readonly counterparts: StoredCounterparts;
  private readonly calls: StoredCallJoins;
  private readonly streamCalls: StreamCallJoins;
  private readonly prompts: StoredPromptJoins;
  private readonly turnEnds: StoredTurnEnds;
  private readonly clock: () => bigint;

  private constructor(path: string, db: Database.Database, clock: () => bigint) {
    this.path = path;
    this.db = db;
    this.clock = clock;
    this.insert = db.prepare(INSERT_EVENT_SQL);
    this.chatChildExists = db.prepare(
      `SELECT 1 FROM events WHERE trace_id = ? AND parent_span_id = ? AND action = 'model.invoked' LIMIT 1`,
    );
    // The parent's event id derives from its trace and span id, so the UNIQUE index finds it.
    this.deleteChatParent = db.prepare(`DELETE FROM events WHERE id = ? AND action = 'model.invoked'`);
    this.counterparts = new StoredCounterparts(db);
    this.turnEnds = new StoredTurnEnds(db);
    this.calls = new StoredCallJoins(db);
    this.streamCalls = new StreamCallJoins(db);
    this.prompts = new StoredPromptJoins(db);
  }

  static open(path: string, options: OpenOptions = {}): EventLog {
    const busy = options.busyTimeoutMs ?? 5000;
    if (!options.readonly) prepareFile(path);
    const db = openDatabase(path, options.readonly === true, busy);
    try {
      if (!options.readonly) {
        ensureSchema(db, path);
        db.pragma('journal_mode = WAL');
        // NORMAL in WAL mode is crash-safe for the process; a power loss may lose the last commits.
        db.pragma('synchronous = NORMAL');
        if (options.hookConnection) db.pragma('wal_autocheckpoint = 0');
      } else {
        checkReadable(db, path);
      }
      return new EventLog(path, db, options.clock ?? (() => BigInt(Date.now()) * 1_000_000n));
    } catch (e) {
      db.close();
      throw asStoreError(e, path);
    }
  }

  /** Appends rows in one transaction: all or nothing. Duplicate ids are ignored, not errors. `tell`: with `held` per row. */
  append(rows: readonly EventRow[], tell = false): AppendResult {
    try {
      return this.appendTx(rows, tell);
    } catch (e) {
      throw asStoreError(e, this.path);
    }
  }

  /** Runs several appends in one transaction (group commit); each keeps its own result. */
  appendMany(batches: readonly (readonly EventRow[])[]): AppendResult[] {
    try {
      return this.db.transaction(() => batches.map((rows) => this.appendRows(rows))).immediate();
    } catch (e) {
      throw asStoreError(e, this.path);
    }
  }

  private appendTx(rows: readonly EventRow[], tell: boolean): AppendResult {
    // IMMEDIATE: take the write lock first. A deferred transaction that reads (the chat-child check)
    // and then writes gets SQLITE_BUSY at once, without waiting, if a hook committed in between.
    return this.db.transaction(() => this.appendRows(rows, tell)).immediate();
  }

  /**
   * A chat span wrapping a chat span (goose's opt-in loop) reports its child's usage again: only the
   * child counts, whichever export arrives first. Wrapper after child: the wrapper is dropped.
   * Child after wrapper (the child's export failed and was retried later): the stored wrapper is removed.
   */
  private appendRows(rows: readonly EventRow[], tell = false): AppendResult {
    const held: boolean[] = [];
    const result: AppendResult = { inserted: 0, duplicates: 0, dropped: 0, ...(tell ? { held } : {}) };
    const receivedNs = this.clock();
    this.counterparts.forget(); // a new transaction: other writers may have added to any session since
    for (const given of rows) {
      let row = given;
      const chat = row.dropIfChatChildStored && row.traceId !== null && row.spanId !== null;
      if (chat && this.chatChildExists.get(row.traceId, row.spanId)) {
        result.dropped++;
        held.push(true);
        continue;
      }
      // An import's row in a session no other path recorded can only be its own earlier record: the
      // insert tells (the UNIQUE id), and only then is that record read, to merge the union into it.
      const own = row.mergeWithStored && this.counterparts.onlyImported(row);
      // Another path's record of the same call or prompt (merge.ts): merged into it, never a second event.
      const counterpart = row.mergeWithStored && !own ? this.counterparts.find(row) : undefined;
      if (counterpart) {
        this.counterparts.merge(row, counterpart);
        result.duplicates++;
        held.push(true);
        continue;
      }
      // A tool call some of whose paths send no call id takes it from the one that does (call-join.ts; a
      // stream's own ids: stream-call-join.ts); a prompt its hook and its OTLP export both report is one
      // row, the hook's (prompt-join.ts), and so is a turn's end (turn-join.ts).
      const joined = row.joinCall ? this.calls.prepare(this.streamCalls.prepare(row)) : row.action === 'prompt.submitted' ? this.prompts.prepare(row) : StoredTurnEnds.applies(row) ? (this.turnEnds.absorb(row) ?? row) : row;
      if (joined === 'merged') {
        result.duplicates++;
        held.push(true);
        continue;
      }
      row = joined;
      if (row.method !== 'poll') this.counterparts.noteOther(row.sessionId);
      const changes = runInsert(this.insert, row, receivedNs).changes;
      if (changes > 0) result.inserted++;
      else {
        result.duplicates++;
        const same = own ? this.counterparts.sameId(row) : undefined;
        if (same) this.counterparts.merge(row, same);
      }
      held.push(changes === 0);
      if (changes > 0 && row.joinCall) this.calls.settle(row);
      if (chat && changes > 0 && row.parentSpanId) result.dropped += this.deleteChatParent.run(spanEventId(row.traceId!, row.parentSpanId)).changes;
    }
    return result;
  }

  list(filter: ListFilter = {}): StoredRow[] {
    return this.select(LIST_SQL, filter) as StoredRow[];
  }

  /** `list` with the indexed columns too: ~1 µs more per row, so only for readers that join rows. */
  listIndexed(filter: ListFilter = {}): IndexedRow[] {
    return this.select(INDEXED_SQL, filter) as IndexedRow[];
  }

  private select(cols: string, filter: ListFilter): unknown[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.sessionId !== undefined) {
      where.push('session_id = ?');
      params.push(filter.sessionId);
    }
    for (const [column, value] of [['harness', filter.harness], ['action', filter.action], ['method', filter.method], ['tool_call_id', filter.toolCallId], ['model', filter.model]] as const) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    if (filter.sinceNs !== undefined) {
      where.push('ts_ns >= ?');
      params.push(filter.sinceNs);
    }
    if (filter.untilNs !== undefined) {
      where.push('ts_ns < ?');
      params.push(filter.untilNs);
    }
    if (filter.afterSeq !== undefined) {
      where.push('seq > ?');
      params.push(filter.afterSeq);
    }
    const cond = where.length ? `WHERE ${where.join(' AND ')}` : '';
    let sql = `SELECT ${cols} FROM events ${cond} ORDER BY ts_ns, seq`;
    if (filter.order === 'seq') {
      sql = `SELECT ${cols} FROM events ${cond} ORDER BY seq${filter.limit !== undefined ? ' LIMIT ?' : ''}`;
      if (filter.limit !== undefined) params.push(filter.limit);
    } else if (filter.limit !== undefined) {
      sql = `SELECT * FROM (SELECT ${cols} FROM events ${cond} ORDER BY ts_ns DESC, seq DESC LIMIT ?) ORDER BY tsNs, seq`;
      params.push(filter.limit);
    }
    try {
      return this.db.prepare(sql).safeIntegers(true).all(...params);
    } catch (e) {
      throw asStoreError(e, this.path);
    }
  }

  /** For each row, whether the log holds it already (its id, or another path's record of it: merge.ts), without writing. */
  holds(rows: readonly EventRow[]): boolean[] {
    try {
      // one stored record absorbs one row of another path, as appendRows would merge them
      const claimed = new Set<bigint>();
      this.counterparts.forget();
      return rows.map((r) => {
        const c = this.counterparts.find(r.mergeWithStored ? r : { ...r, sessionId: null });
        if (!c || (c.kind === 'matched' && claimed.has(c.seq))) return false;
        if (c.kind === 'matched') claimed.add(c.seq);
        return true;
      });
    } catch (e) {
      throw asStoreError(e, this.path);
    }
  }

  /** The newest commit's sequence number (0 for an empty log). */
  maxSeq(): bigint {
    const r = this.db.prepare('SELECT coalesce(max(seq), 0) AS m FROM events').safeIntegers(true).get() as { m: bigint };
    return r.m;
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}



/**
 * The directory is the user's alone (0700) and so is the file (0600): events hold prompts and
 * commands. Checked like ~/.ssh on every open (model/file-checks.ts): a directory or log another
 * user owns or may write, or a log that is a symlink or a FIFO, is refused (issue 22 item 1); a log
 * of the user's that others may read is made 0600, with a warning (item 3).
 */
function prepareFile(path: string): void {
  try {
    ensurePrivateDir(dirname(path));
    closeSync(openChecked(path, constants.O_WRONLY | constants.O_CREAT, 0o600, { secret: true, onTightened: (m) => process.emitWarning(m, 'BeaconWarning') }));
  } catch (e) {
    if (isBeaconError(e)) throw e;
    throw new BeaconError('unavailable', `cannot create the event log ${path}: ${(e as Error).message}`, { cause: e });
  }
}


