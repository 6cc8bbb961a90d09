import { lstatSync, readdirSync, statSync, type BigIntStats, type Stats } from 'node:fs';
import { join } from 'node:path';
import { myUid } from '../model/file-checks';
import type { Warn } from './store-read';
import type { SessionStore } from './store-registry';

/**
 * Finding and reading an agent's session files, the same way for every agent. Each file is input
 * like any other (issue 31 item 5): a symlink is never followed (it may lead out of the store), a
 * file another user may write is skipped (they could plant sessions, or secrets, in your history),
 * and a file is streamed line by line with every line capped, so a 1 GB transcript or a 200 MB line
 * costs bounded memory. Reading takes no lock and opens read-only: the agent may be appending.
 */

export { MAX_LINE_BYTES, readSessionFile, type FileResult } from './store-read';

export interface SessionFile {
  path: string;
  size: number;
  mtimeMs: number;
  /** device, inode and mtime in ns, exactly (a cursor compares them: store/log/import-cursors.ts) */
  dev?: string;
  ino?: string;
  mtimeNs?: bigint;
}

/** A warning about one file or directory: where, and what (never a line's content: it may hold a secret). */
export type { Warn } from './store-read';

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
    const st = lstatSync(path, { throwIfNoEntry: false, bigint: true });
    if (!st) continue; // removed meanwhile
    if (st.isSymbolicLink()) {
      if (depth + 1 <= store.depth && (store.isSessionFile(relative) || depth + 1 < store.depth)) warn(`${path}: a symbolic link, not followed (it may lead out of the store), skipped`);
      continue;
    }
    if (st.isDirectory()) {
      if (depth + 1 < store.depth && trusted(path, st, 'directory', warn)) walk(store, path, relative, depth + 1, out, warn);
    } else if (store.isSessionFile(relative)) {
      if (!st.isFile()) warn(`${path}: not a regular file, skipped`);
      else if (trusted(path, st, 'file', warn)) out.push({ path, size: Number(st.size), mtimeMs: Number(st.mtimeMs), dev: String(st.dev), ino: String(st.ino), mtimeNs: st.mtimeNs });
    }
  }
}

/** Yours, and nobody else may write it: a file another user can write may hold what they put there. */
export function trusted(path: string, st: Stats | BigIntStats, what: string, warn: Warn): boolean {
  const uid = myUid();
  if (uid !== undefined && Number(st.uid) !== uid) {
    warn(`${path}: the ${what} belongs to uid ${st.uid}, not to you (uid ${uid}): skipped`);
    return false;
  }
  const mode = Number(st.mode);
  if ((mode & 0o022) !== 0) {
    warn(`${path}: other users may write the ${what} (mode ${(mode & 0o777).toString(8)}): skipped (chmod go-w it to import it)`);
    return false;
  }
  return true;
}

