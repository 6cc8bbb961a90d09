import { statSync } from 'node:fs';
import type { NormalizedEvent } from '../model/record';
import type { ReaderContext } from '../sources/store-registry';
import type { Warn } from '../sources/store-read';
import { recordEvents, type FileImportOptions } from './file-import';

/**
 * A store read whole rather than line by line (a SQLite database: opencode's, goose's), with the
 * same cursor table: it is read again only when it or its write-ahead log changed since the last
 * import (device, inode, their sizes and newest mtime, taken before the read, so a commit during
 * the read makes the next import read it again). What it held before adds nothing: the merge.
 */
export interface WholeSource {
  harness: string;
  /** the file read (its `-wal` beside it counts too) */
  path: string;
  /**
   * its events, in batches (a database's sessions a page at a time); `since` is what the last read
   * returned (kept in the cursor's context), and the read returns what the next one is to be given
   */
  read(warn: Warn, since?: ReaderContext): Generator<NormalizedEvent[], ReaderContext | undefined | void>;
}

interface Stamp {
  dev: string;
  ino: string;
  size: number;
  mtimeNs: bigint;
}

function stampOf(path: string): Stamp | undefined {
  const st = statSync(path, { throwIfNoEntry: false, bigint: true });
  if (!st) return undefined;
  const wal = statSync(`${path}-wal`, { throwIfNoEntry: false, bigint: true });
  const mtimeNs = wal && wal.mtimeNs > st.mtimeNs ? wal.mtimeNs : st.mtimeNs;
  return { dev: String(st.dev), ino: String(st.ino), size: Number(st.size + (wal?.size ?? 0n)), mtimeNs };
}

/** Imports `source` unless unchanged since its cursor: whether it was read, and the events it added. */
export async function importWhole(source: WholeSource, o: Pick<FileImportOptions, 'target' | 'warn' | 'sinceNs' | 'onRows'>): Promise<{ read: boolean; added: number }> {
  const stamp = stampOf(source.path);
  if (!stamp) return { read: false, added: 0 };
  const c = o.target.cursors.get(source.path);
  if (c && c.dev === stamp.dev && c.ino === stamp.ino && c.size === stamp.size && c.mtimeNs === stamp.mtimeNs) return { read: false, added: 0 };
  let added = 0;
  // the same file as the cursor's (not replaced): only what is past its mark; --since reads all it may keep
  const since = c && c.dev === stamp.dev && c.ino === stamp.ino && o.sinceNs === undefined ? c.context : undefined;
  const batches = source.read(o.warn, since);
  let next = batches.next();
  for (; !next.done; next = batches.next()) added += await recordEvents(source.path, next.value, o);
  const mark = next.value ?? undefined;
  if (o.sinceNs === undefined) {
    try {
      o.target.cursors.put({ path: source.path, harness: source.harness, ...stamp, readOffset: 0, resumeOffset: 0, ...(mark ? { context: mark } : {}) });
    } catch (e) {
      o.warn(`${source.path}: that it was read is not saved (${(e as Error).message}): the next import reads it again, adding nothing twice`);
    }
  }
  return { read: true, added };
}
