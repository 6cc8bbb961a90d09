import Database from 'better-sqlite3';
import { lstatSync } from 'node:fs';
import { BeaconError, isBeaconError } from '../../model/errors';
import { unsafePath } from '../../model/file-checks';
import { shellQuote } from '../../model/shell-quote';
import { checkReadable } from './schema';

/**
 * Opening the log, and a read-only handle on it without the writer (event-log.ts): a command that
 * only reads (`beacon sessions`) loads none of the writer's joins and merges, nor node:crypto for
 * its event ids, and prepares none of its statements (issue 33: a read command starts in about one
 * bare Node.js start).
 */

/** A log opened read-only: its connection, nothing else. */
export interface ReadOnlyLog {
  readonly path: string;
  readonly db: Database.Database;
  close(): void;
}

/** The log at `path`, read-only: refused as `EventLog.open(path, { readonly: true })` refuses it. */
export function openReadOnlyLog(path: string, busyTimeoutMs = 5000): ReadOnlyLog {
  const db = openDatabase(path, true, busyTimeoutMs);
  try {
    checkReadable(db, path);
  } catch (e) {
    db.close();
    throw asStoreError(e, path);
  }
  return { path, db, close: () => { if (db.open) db.close(); } };
}

/** The connection, busy timeout set; a reader's path checked first (see checkReadablePath). */
export function openDatabase(path: string, readonly: boolean, busyTimeoutMs: number): Database.Database {
  if (readonly) checkReadablePath(path);
  let db: Database.Database;
  try {
    db = new Database(path, { readonly, fileMustExist: readonly, timeout: busyTimeoutMs, nativeBinding: nativeBinding() });
  } catch (e) {
    throw asStoreError(e, path);
  }
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  } catch (e) {
    db.close();
    throw asStoreError(e, path);
  }
  return db;
}

/**
 * The addon file, resolved once: better-sqlite3's default lookup (the `bindings` package) probes a
 * dozen paths and costs a hook ~4 ms of goose's time on every call. Resolved by name, not from the
 * loaded module's path: the hook adapter's bundle carries better-sqlite3's JavaScript inside it
 * (issue 25), and only the addon stays a file in node_modules.
 */
function nativeBinding(): string | undefined {
  if (binding === undefined) {
    try {
      binding = require.resolve('better-sqlite3/build/Release/better_sqlite3.node');
    } catch {
      binding = null;
    }
  }
  return binding ?? undefined;
}

let binding: string | null | undefined;

/** A reader follows no symlink and opens no FIFO or device (SQLite's open of a FIFO would block). */
function checkReadablePath(path: string): void {
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return; // missing: SQLite says so with fileMustExist
  }
  if (st.isSymbolicLink() || !st.isFile()) {
    throw unsafePath(path, st.isSymbolicLink() ? 'it is a symbolic link where Beacon expects its event log' : 'it is not a regular file', `rm ${shellQuote(path)} (or pass the real file with --log)`);
  }
}

/** SQLite failures as Beacon errors: busy and I/O trouble are temporary (retry), a foreign file is not. */
export function asStoreError(e: unknown, path: string): BeaconError {
  if (isBeaconError(e)) return e;
  const code = (e as { code?: string }).code ?? '';
  const msg = (e as Error).message;
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_BUSY')) {
    return new BeaconError('unavailable', `the event log ${path} is locked by another writer: ${msg}`, { cause: e, retryAfterSeconds: 1 });
  }
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new BeaconError('log_incompatible', `${path} is not a Beacon event log (${msg}); refusing to write to it`, { cause: e });
  }
  if (code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_READONLY') {
    return new BeaconError('unavailable', `cannot write the event log ${path}: ${msg}`, { cause: e, retryAfterSeconds: 5 });
  }
  return new BeaconError('internal', `event log ${path}: ${msg}`, { cause: e });
}
