import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { BeaconError } from '../../model/errors';

/** What is at an event-log path, found without creating anything. */
export type LogState = { kind: 'missing' } | { kind: 'directory' } | { kind: 'not-sqlite'; size: number } | { kind: 'file'; size: number };

const SQLITE_MAGIC = 'SQLite format 3\0';

export function inspectLog(path: string): LogState {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return { kind: 'missing' };
    throw new BeaconError('unavailable', `cannot read the event log ${path}: ${(e as Error).message}`);
  }
  if (st.isDirectory()) return { kind: 'directory' };
  // A zero-length file is what a first writer creates before the schema: SQLite treats it as empty.
  if (st.size === 0) return { kind: 'file', size: 0 };
  const head = Buffer.alloc(16);
  let n = 0;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    n = readSync(fd, head, 0, 16, 0);
  } catch (e) {
    throw new BeaconError('unavailable', `cannot read the event log ${path}: ${(e as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return n === 16 && head.toString('latin1') === SQLITE_MAGIC ? { kind: 'file', size: st.size } : { kind: 'not-sqlite', size: st.size };
}

/** The message for a path that cannot be an event log; undefined when it is a file SQLite can open. */
export function logProblem(path: string, state: LogState): string | undefined {
  switch (state.kind) {
    case 'directory':
      return `${path} is a directory, not an event log: pass the file, e.g. --log ${path.replace(/\/+$/, '')}/events.db`;
    case 'not-sqlite':
      return `${path} is not a SQLite file (${state.size} bytes that do not start with SQLite's header), so not a Beacon event log`;
    default:
      return undefined;
  }
}

