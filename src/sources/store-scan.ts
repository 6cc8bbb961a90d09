import { closeSync, constants, lstatSync, readdirSync, readSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { isBeaconError } from '../model/errors';
import { myUid, openChecked } from '../model/file-checks';
import type { NormalizedEvent } from '../model/record';
import { LineSplitter } from '../stream/lines';
import type { SessionStore } from './store-registry';

/**
 * Finding and reading an agent's session files, the same way for every agent. Each file is input
 * like any other (issue 31 item 5): a symlink is never followed (it may lead out of the store), a
 * file another user may write is skipped (they could plant sessions, or secrets, in your history),
 * and a file is streamed line by line with every line capped, so a 1 GB transcript or a 200 MB line
 * costs bounded memory. Reading takes no lock and opens read-only: the agent may be appending.
 */

/** A line longer than this is skipped (with a warning), its bytes never held. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

export interface SessionFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** A warning about one file or directory: where, and what (never a line's content: it may hold a secret). */
export type Warn = (message: string) => void;

/** The session files under the store's root (none when it does not exist), oldest first. */
export function sessionFiles(store: SessionStore, root: string, warn: Warn): SessionFile[] {
  let st: Stats;
  try {
    st = statSync(root); // the root itself may be a link (a dotfiles checkout); nothing under it is followed
  } catch {
    return [];
  }
  if (!st.isDirectory()) {
    warn(`${root}: not a directory, skipped`);
    return [];
  }
  if (!trusted(root, st, 'directory', warn)) return [];
  const out: SessionFile[] = [];
  walk(store, root, '', 0, out, warn);
  return out.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.path < b.path ? -1 : 1));
}

function walk(store: SessionStore, dir: string, rel: string, depth: number, out: SessionFile[], warn: Warn): void {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (e) {
    warn(`${dir}: cannot list it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}), skipped`);
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    const relative = rel ? `${rel}/${name}` : name;
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st) continue; // removed meanwhile
    if (st.isSymbolicLink()) {
      if (depth + 1 <= store.depth && (store.isSessionFile(relative) || depth + 1 < store.depth)) warn(`${path}: a symbolic link, not followed (it may lead out of the store), skipped`);
      continue;
    }
    if (st.isDirectory()) {
      if (depth + 1 < store.depth && trusted(path, st, 'directory', warn)) walk(store, path, relative, depth + 1, out, warn);
    } else if (store.isSessionFile(relative)) {
      if (!st.isFile()) warn(`${path}: not a regular file, skipped`);
      else if (trusted(path, st, 'file', warn)) out.push({ path, size: st.size, mtimeMs: st.mtimeMs });
    }
  }
}

/** Yours, and nobody else may write it: a file another user can write may hold what they put there. */
function trusted(path: string, st: Stats, what: string, warn: Warn): boolean {
  const uid = myUid();
  if (uid !== undefined && st.uid !== uid) {
    warn(`${path}: the ${what} belongs to uid ${st.uid}, not to you (uid ${uid}): skipped`);
    return false;
  }
  if ((st.mode & 0o022) !== 0) {
    warn(`${path}: other users may write the ${what} (mode ${(st.mode & 0o777).toString(8)}): skipped (chmod go-w it to import it)`);
    return false;
  }
  return true;
}

export interface FileResult {
  events: NormalizedEvent[];
  lines: number;
  /** lines skipped, by why */
  skipped: { malformed: number; tooLong: number; invalidUtf8: number; unreadable: number };
}

/**
 * Reads one session file with the store's reader. Opened O_NOFOLLOW and re-checked on the open
 * descriptor (the walk's check could be raced by a rename). A file that cannot be opened gives no
 * events and one warning; a bad line is skipped and counted, the rest of the file still read.
 */
export function readSessionFile(store: SessionStore, file: SessionFile, warn: Warn, maxLineBytes = MAX_LINE_BYTES): FileResult {
  const result: FileResult = { events: [], lines: 0, skipped: { malformed: 0, tooLong: 0, invalidUtf8: 0, unreadable: 0 } };
  let fd: number;
  try {
    fd = openChecked(file.path, constants.O_RDONLY);
  } catch (e) {
    warn(isBeaconError(e) ? e.message : `${file.path}: cannot open it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}), skipped`);
    result.skipped.unreadable++;
    return result;
  }
  const reader = store.reader(file.path);
  const splitter = new LineSplitter(maxLineBytes, 0);
  const first: Partial<Record<keyof FileResult['skipped'], number>> = {};
  const skip = (why: keyof FileResult['skipped']) => {
    result.skipped[why]++;
    first[why] ??= result.lines;
  };
  const take = (lines: ReturnType<LineSplitter['push']>) => {
    for (const line of lines) {
      result.lines++;
      if (line.truncated) skip('tooLong');
      else if (line.invalidUtf8) skip('invalidUtf8');
      else if (line.text.trim() !== '') {
        try {
          const value: unknown = JSON.parse(line.text);
          if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
          result.events.push(...reader.line(value as Record<string, unknown>));
        } catch {
          skip('malformed');
        }
      }
    }
  };
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    const document = store.isJsonDocument?.(file.path) === true;
    for (let n = readSync(fd, buf, 0, CHUNK_BYTES, null); n > 0; n = readSync(fd, buf, 0, CHUNK_BYTES, null)) {
      const chunk = Buffer.from(buf.subarray(0, n));
      // one document, one line: a newline is JSON whitespace (a string cannot hold a raw one), a space reads the same
      if (document) for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) chunk[i] = 32;
      take(splitter.push(chunk));
    }
    take(splitter.end());
    result.events.push(...reader.end());
  } catch (e) {
    warn(`${file.path}: reading stopped at line ${result.lines + 1} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); what was read before is kept`);
  } finally {
    closeSync(fd);
  }
  const what = { malformed: 'not a JSON object (or not a record the reader knows the shape of)', tooLong: `longer than ${maxLineBytes / 1024 / 1024} MiB`, invalidUtf8: 'not UTF-8' } as const;
  for (const why of ['malformed', 'tooLong', 'invalidUtf8'] as const) {
    const n = result.skipped[why];
    if (n > 0) warn(`${file.path}: ${n} line${n === 1 ? '' : 's'} ${what[why]}, skipped (first: line ${first[why]})`);
  }
  return result;
}
