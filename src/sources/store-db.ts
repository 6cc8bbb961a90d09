import Database from 'better-sqlite3';
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { NormalizedEvent } from '../model/record';
import type { ReaderContext } from './store-registry';
import type { Warn } from './store-read';
import { trusted } from './store-scan';

/**
 * An agent's session store that is a SQLite database (opencode's `opencode.db`, goose's
 * `sessions.db`), as `beacon import` reads it. The agent keeps the database open and writes it in
 * WAL mode while it runs; Beacon must never make it wait. So the database is never opened where it
 * is: it and its `-wal` are copied (read-only, O_NOFOLLOW, checked on the open descriptor like every
 * store file) into a fresh 0700 directory of Beacon's, and that private copy is opened read-only.
 * A copy reads the files with plain reads: no SQLite lock, no `-shm` mapping shared with the agent.
 *
 * Why not `file:…?mode=ro` on the agent's own file: a read-only connection still takes a shared lock
 * and maps the agent's `-shm` (a checkpoint the agent wants waits on our read transaction), and
 * `immutable=1` is documented as unsafe while another process writes (it may read a torn page).
 *
 * A checkpoint between the copy of the database and of its `-wal` would pair an old file with a
 * new log; the database's size and mtime are compared before and after, and a changed one is copied
 * again. The agent's last transaction, half-written in the `-wal`, has no commit frame yet: SQLite
 * ignores it in the copy, and the next import (its stamp changed) reads it.
 */
export interface DatabaseStore {
  /** Beacon's harness name for the agent (the same as its OTLP source's) */
  readonly harness: string;
  /** the words `beacon import <agent>` accepts for it */
  readonly names: readonly string[];
  /** the database file: the agent's own override variables when `env` is given, else its default place under `home` */
  path(home: string, env?: NodeJS.ProcessEnv): string;
  /**
   * Its events from the private copy, opened read-only, in batches (a session at a time). A table
   * or column it does not find (another version of the agent) is a warning, never a throw.
   */
  read(db: Database.Database, warn: Warn, since?: ReaderContext): Iterable<NormalizedEvent[]>;
  /**
   * Optional, the per-row cursor: how far each table it reads goes in the copy (an autoincrement
   * id's max, a `time_updated`'s), content-free. Given back to `read` as `since`, only the sessions
   * with a row at or past it are read — whole, so a tool call's request in an older row still meets
   * its result in a new one — and an append to a large database reads its one session, not all.
   * Undefined (a schema without such a column) reads the whole database each time, as before.
   */
  mark?(db: Database.Database): ReaderContext | undefined;
}

/**
 * A table a database reader reads, and the column its mark is taken of: an autoincrement id (a
 * later row has a larger one), or a time in ms (`time: true`: a row written in the mark's
 * millisecond but committed after the copy has the same value, so that millisecond is read again —
 * never missed; the merge makes it add nothing twice).
 */
export type MarkedTable = { table: string; column: string; time?: boolean };

/**
 * The sessions with a row past `since` in any of `tables`: undefined when `since` does not cover
 * every one (a first read, another schema) — then all of them are read.
 */
export function sessionsSince(db: Database.Database, tables: readonly MarkedTable[], since: ReaderContext | undefined): Set<string> | undefined {
  if (!since || tables.some((t) => typeof since[t.table] !== 'number')) return undefined;
  const ids = new Set<string>();
  for (const t of tables) {
    const rows = db.prepare(`SELECT DISTINCT session_id FROM ${t.table} WHERE ${t.column} ${t.time ? '>=' : '>'} ?`).all(since[t.table]) as { session_id: string }[];
    for (const r of rows) ids.add(r.session_id);
  }
  return ids;
}

/** Each table's max of its column (0 when empty): a mark for `sessionsSince`. */
export function markOf(db: Database.Database, tables: readonly MarkedTable[]): ReaderContext {
  const mark: ReaderContext = {};
  for (const t of tables) mark[t.table] = (db.prepare(`SELECT coalesce(max(${t.column}), 0) AS m FROM ${t.table}`).get() as { m: number }).m;
  return mark;
}

const COPY_ATTEMPTS = 3;
const CHUNK_BYTES = 1024 * 1024;

interface Stamp {
  size: number;
  mtimeNs: bigint;
}

/** The agent's file opened for copying: a regular file, not a link, the user's and nobody else may write it. */
function openSource(path: string, warn: Warn): { fd: number; stamp: Stamp } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') warn(`${path}: a symbolic link, not followed (it may lead out of the store), skipped`);
    else warn(`${path}: cannot open it (${code ?? (e as Error).message}), skipped`);
    return undefined;
  }
  const st = fstatSync(fd, { bigint: true });
  if (!st.isFile()) warn(`${path}: not a regular file, skipped`);
  else if (trusted(path, st, 'file', warn)) return { fd, stamp: { size: Number(st.size), mtimeNs: st.mtimeNs } };
  closeSync(fd);
  return undefined;
}

function copyFd(from: number, to: string): void {
  const out = openSync(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    for (let pos = 0; ; ) {
      const n = readSync(from, buf, 0, CHUNK_BYTES, pos);
      if (n === 0) break;
      writeSync(out, buf, 0, n);
      pos += n;
    }
  } finally {
    closeSync(out);
  }
}

/** One copy of the database then its `-wal` into `dir`; false when the database changed meanwhile (a checkpoint). */
function copyOnce(path: string, dir: string, warn: Warn): boolean | undefined {
  const db = openSource(path, warn);
  if (!db) return undefined;
  const target = join(dir, basename(path));
  try {
    copyFd(db.fd, target);
    const wal = openSource(`${path}-wal`, warn);
    if (wal) {
      try {
        copyFd(wal.fd, `${target}-wal`);
      } finally {
        closeSync(wal.fd);
      }
    } else if (statSync(`${path}-wal`, { throwIfNoEntry: false })) return undefined; // a -wal there but refused (warned): its commits would be missing
    const after = fstatSync(db.fd, { bigint: true });
    return Number(after.size) === db.stamp.size && after.mtimeNs === db.stamp.mtimeNs;
  } finally {
    closeSync(db.fd);
  }
}

/** A private, read-only copy of the store's database: the connection, and its removal. Undefined (warned) when none can be made. */
export function openPrivateCopy(path: string, warn: Warn): { db: Database.Database; close(): void } | undefined {
  const parent = statSync(dirname(path), { throwIfNoEntry: false, bigint: true });
  if (!parent) return undefined;
  if (!trusted(dirname(path), parent, 'directory', warn)) return undefined;
  for (let attempt = 1; attempt <= COPY_ATTEMPTS; attempt++) {
    const dir = mkdtempSync(join(tmpdir(), 'beacon-import-')); // 0700, Beacon's own
    const remove = () => rmSync(dir, { recursive: true, force: true });
    let ok: boolean | undefined;
    try {
      ok = copyOnce(path, dir, warn);
    } catch (e) {
      remove();
      warn(`${path}: cannot copy it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}), skipped`);
      return undefined;
    }
    if (ok === undefined) {
      remove();
      return undefined;
    }
    if (!ok) {
      remove();
      continue;
    }
    let db: Database.Database | undefined;
    try {
      db = new Database(join(dir, basename(path)), { readonly: true, fileMustExist: true });
      db.pragma('query_only = ON');
      db.pragma('schema_version'); // reads the header and schema now: a file that is not SQLite fails here, not mid-import
      const open = db;
      return { db: open, close: () => (open.close(), remove()) };
    } catch (e) {
      try {
        db?.close();
      } catch {
        /* not opened */
      }
      remove();
      warn(`${path}: not a SQLite database Beacon can read (${(e as Error).message}), skipped`);
      return undefined;
    }
  }
  warn(`${path}: it changed during each of ${COPY_ATTEMPTS} copies (the agent checkpointing), skipped: the next import tries again`);
  return undefined;
}

/** The columns of `table` in the copy (empty when there is no such table): readers ask before they select. */
export function columnsOf(db: Database.Database, table: string): Set<string> {
  return new Set((db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map((c) => c.name));
}

/** A JSON column's value as an object; undefined when it is not one. */
export function jsonObject(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
