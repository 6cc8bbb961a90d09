import { closeSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { toRows } from '../ingest/rows';
import type { EventRow } from '../ingest/sink';
import type { NormalizedEvent } from '../model/record';
import type { FileCursor } from '../store/log/import-cursors';
import type { SessionStore } from '../sources/store-registry';
import { openSessionFile, SessionFileRead, type OpenedFile, type ReadPosition, type Warn } from '../sources/store-read';
import type { SessionFile } from '../sources/store-scan';
import type { ImportTarget } from './target';

/**
 * One session file imported from where its cursor says it stopped (issue 31 item 3):
 *
 * - same device, inode, size and mtime as the cursor: nothing to read (not even opened);
 * - another file at the path (device or inode), or a smaller one: read again from its start;
 * - grown (or only touched): read from the cursor's resume point, with the reader's context there,
 *   up to the end of the last complete line; a JSON document (rewritten whole), from its start.
 *
 * Events go to the target a step at a time (`STEP_BYTES` of the file), and the cursor after each
 * step, so memory stays bounded on a 1 GB transcript and an interrupted import goes on where it
 * was. Lines read again (from the resume point) give events with the ids they had: merged, nothing added.
 */
export const STEP_BYTES = 4 * 1024 * 1024;

export interface FileImportOptions {
  target: ImportTarget;
  warn: Warn;
  /** only events at or after this time (an import with --since); its cursors are then read, never advanced */
  sinceNs?: bigint;
  /** read as finished: its last line without a newline if whole, and what the reader still holds (a tool call without its result) */
  finished: boolean;
  /** each batch of rows and, per row, whether the log held it (the CLI's tallies) */
  onRows?: (rows: EventRow[], held: boolean[] | undefined) => void;
  /** after each step, the bytes of the file read so far in this pass (the progress bar) */
  onStep?: (bytes: number) => void;
  /** checked after each step: true ends the read there (its cursor saved: the next read goes on from it) */
  stopping?: () => boolean;
}

export interface FileImported {
  /** bytes read from the file in this call (0: unchanged since its cursor) */
  bytes: number;
  added: number;
  /** the read, still holding what its reader waits for (the follow keeps it for the file's next growth) */
  read?: SessionFileRead;
}

/** Whether the file is as its cursor saw it: nothing in it to read. */
export function unchanged(file: Pick<SessionFile, 'size' | 'dev' | 'ino' | 'mtimeNs'>, c: FileCursor | undefined): boolean {
  return c !== undefined && file.dev === c.dev && file.ino === c.ino && file.size === c.size && file.mtimeNs === c.mtimeNs;
}

/** Where to read `opened` from, given its cursor and a read the follow kept (`live`): undefined when nothing is to be read. */
function startOf(store: SessionStore, opened: OpenedFile, c: FileCursor | undefined, live: SessionFileRead | undefined): ReadPosition | SessionFileRead | undefined {
  if (!c || opened.dev !== c.dev || opened.ino !== c.ino || opened.size < c.size) return { offset: 0 }; // new, replaced or truncated
  if (opened.size === c.size && opened.mtimeNs === c.mtimeNs) return undefined;
  if (store.isJsonDocument?.(opened.path) === true) return { offset: 0 }; // rewritten whole: read whole
  if (live && live.readOffset === c.readOffset) return live;
  return { offset: c.resumeOffset, ...(c.context ? { context: c.context } : {}) };
}

export async function importFile(store: SessionStore, file: SessionFile, o: FileImportOptions, live?: SessionFileRead): Promise<FileImported> {
  const cursor = o.target.cursors.get(file.path);
  if (unchanged(file, cursor)) return { bytes: 0, added: 0, ...(live ? { read: live } : {}) };
  const opened = openSessionFile(file.path, o.warn);
  if (!opened) return { bytes: 0, added: 0 };
  let read: SessionFileRead | undefined;
  let added = 0;
  try {
    const start = startOf(store, opened, cursor, live);
    if (!start) return { bytes: 0, added: 0, ...(live ? { read: live } : {}) };
    read = start instanceof SessionFileRead ? start : new SessionFileRead(store, file.path, start);
    read.rewind();
    const before = read.bytesRead;
    const finished = o.finished || read.document; // a document is read whole, each time: nothing of it waits
    const save = cursorSaver(store, file.path, opened, o);
    for (;;) {
      const step = read.step(opened.fd, STEP_BYTES);
      const events = step.atEnd && finished ? [...step.events, ...read.finish(o.warn)] : step.events;
      added += await recordEvents(file.path, events, o);
      save(read);
      o.onStep?.(read.bytesRead - before);
      if (step.atEnd) break;
      if (o.stopping?.()) return { bytes: read.bytesRead - before, added }; // the reader dropped: the next read starts at the cursor's resume point
      o.target.flush?.(); // nor the log's lock while it waits
      await nextTurn(); // a long file never holds the event loop (the collector's receiver shares it)
    }
    return { bytes: read.bytesRead - before, added, ...(finished ? {} : { read }) };
  } catch (e) {
    o.warn(`${file.path}: reading stopped at line ${(read?.lines ?? 0) + 1} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); what was read before is kept`);
    return { bytes: read?.bytesRead ?? 0, added };
  } finally {
    closeSync(opened.fd);
    read?.warnSkipped(o.warn);
  }
}

/** Events of a file as rows, through the ingest path every source takes (redaction and limits included); how many were new. */
export async function recordEvents(path: string, events: NormalizedEvent[], o: Pick<FileImportOptions, 'target' | 'warn' | 'sinceNs' | 'onRows'>): Promise<number> {
  const kept = o.sinceNs === undefined ? events : events.filter((e) => e.timeUnixNano >= o.sinceNs!);
  if (kept.length === 0) return 0;
  // A line read again may complete what an earlier read recorded as far as it knew (a tool call
  // recorded without its result, the file then still being written): same id, merged as a union.
  for (const ev of kept) ev.mergeWithStored = true;
  const rows = toRows(kept);
  for (const r of rows.rejected) o.warn(`${path}: an event ${r.action} not recorded: ${r.reason}`);
  const done = await o.target.record(rows.rows);
  o.onRows?.(rows.rows, done.held);
  return done.added;
}

/**
 * Saves the cursor after a step (not with --since: what it skipped must be read by a full import).
 * A cursor that cannot be saved (the log locked past its budget) is warned about: the next import
 * reads the file again from the older cursor, and the merge makes that add nothing.
 */
function cursorSaver(store: SessionStore, path: string, opened: OpenedFile, o: FileImportOptions): (read: SessionFileRead) => void {
  let warned = false;
  return (read) => {
    if (o.sinceNs !== undefined) return;
    try {
      o.target.cursors.put({
        path, harness: store.harness, dev: opened.dev, ino: opened.ino, size: read.seen, mtimeNs: opened.mtimeNs,
        readOffset: read.readOffset, resumeOffset: read.resume.offset, ...(read.resume.context ? { context: read.resume.context } : {}),
      });
    } catch (e) {
      if (!warned) o.warn(`${path}: where its import stopped is not saved (${(e as Error).message}): the next import reads it again, adding nothing twice`);
      warned = true;
    }
  };
}
