import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { isBeaconError } from '../model/errors';
import { openChecked } from '../model/file-checks';
import type { NormalizedEvent } from '../model/record';
import { LineSplitter, type Line } from '../stream/lines';
import type { ReaderContext, SessionStore, StoreFileReader } from './store-registry';

/**
 * Reading one session file from a byte offset, in steps of bounded size (issue 31 item 3): a 1 GB
 * transcript is streamed, never held, and a read can stop at any step and go on later. What a
 * cursor needs is kept as it goes: the end of the last complete line (`readOffset`: a half-written
 * last line is not read until its newline comes) and the last point where the reader held nothing
 * pending (`resume`, with the reader's context there), where a fresh reader can start again.
 *
 * Why a resume point rather than the reader's pending state persisted: what a reader holds between
 * lines is content (a tool call's arguments waiting for its result, a prompt), which Beacon stores
 * only redacted, in events. A fresh reader re-reads from the resume point instead; the events of the
 * lines it reads again have the ids they had, and the merge makes them add nothing.
 */

/** A line longer than this is skipped (with a warning), its bytes never held. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;
/** one buffer for every read: a step reads and splits synchronously, and the follow keeps many reads open */
const CHUNK = Buffer.allocUnsafe(CHUNK_BYTES);

export type Warn = (message: string) => void;

/** Where a read starts: a byte offset at the start of a line, and the reader's context there. */
export interface ReadPosition {
  offset: number;
  context?: ReaderContext;
}

/** An open session file: its descriptor and what it is (a cursor compares device, inode, size and mtime). */
export interface OpenedFile {
  path: string;
  fd: number;
  dev: string;
  ino: string;
  size: number;
  mtimeNs: bigint;
}

/**
 * Opens a session file read-only, O_NOFOLLOW, re-checked on the open descriptor (the walk's check
 * could be raced by a rename); undefined, with one warning, when it cannot be.
 */
export function openSessionFile(path: string, warn: Warn): OpenedFile | undefined {
  let fd: number;
  try {
    fd = openChecked(path, constants.O_RDONLY);
  } catch (e) {
    warn(isBeaconError(e) ? e.message : `${path}: cannot open it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}), skipped`);
    return undefined;
  }
  const st = fstatSync(fd, { bigint: true });
  return { path, fd, dev: String(st.dev), ino: String(st.ino), size: Number(st.size), mtimeNs: st.mtimeNs };
}

export type Skipped = { malformed: number; tooLong: number; invalidUtf8: number; unreadable: number };

/**
 * One session file being read by its store's reader. A bad line is skipped and counted (the rest of
 * the file still read); `warnSkipped` says so once per kind. The reader lives as long as this
 * object: `rewind` starts a new pass at `readOffset` (the follow's next look at a grown file).
 */
export class SessionFileRead {
  readOffset: number;
  resume: ReadPosition;
  /** bytes read from the file, every pass */
  bytesRead = 0;
  lines = 0;
  readonly skipped: Skipped = { malformed: 0, tooLong: 0, invalidUtf8: 0, unreadable: 0 };
  private readonly first: Partial<Record<keyof Skipped, number>> = {};
  private readonly reader: StoreFileReader;
  private splitter!: LineSplitter;
  private position!: number;
  private pending: NormalizedEvent[] = [];
  /** one JSON document, not lines (`SessionStore.isJsonDocument`): read as one line */
  readonly document: boolean;

  constructor(
    store: SessionStore,
    readonly path: string,
    start: ReadPosition,
    private readonly maxLineBytes = MAX_LINE_BYTES,
  ) {
    this.reader = store.reader(path, start.context);
    this.document = store.isJsonDocument?.(path) === true;
    this.readOffset = start.offset;
    this.resume = { ...start };
    this.rewind();
  }

  /** bytes of the file seen so far (a half-written last line included): a cursor's size */
  get seen(): number {
    return this.position;
  }

  /** A new pass: from the end of the last complete line (a half line read before is read again, whole this time). */
  rewind(): void {
    this.position = this.readOffset;
    this.splitter = new LineSplitter(this.maxLineBytes, 0);
  }

  /**
   * Reads up to `maxBytes` more from `fd` (at least one chunk): the events settled meanwhile (all of
   * them at `finish` for a reader without `settled`), and whether the file's end was reached.
   */
  step(fd: number, maxBytes: number): { events: NormalizedEvent[]; atEnd: boolean } {
    let atEnd = false;
    for (let budget = maxBytes; ; ) {
      const n = readSync(fd, CHUNK, 0, CHUNK_BYTES, this.position);
      if (n === 0) {
        atEnd = true;
        break;
      }
      this.position += n;
      this.bytesRead += n;
      // a copy: the splitter keeps a slice of the chunk for a line the next chunk ends
      const chunk = Buffer.from(CHUNK.subarray(0, n));
      // one document, one line: a newline is JSON whitespace (a string cannot hold a raw one), a space reads the same
      if (this.document) for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) chunk[i] = 32;
      for (const line of this.splitter.push(chunk)) {
        this.take(line);
        this.readOffset += line.bytes + 1;
        if (this.reader.idle?.()) this.resume = { offset: this.readOffset, context: this.reader.context?.() };
      }
      budget -= n;
      if (budget <= 0) break;
    }
    return { events: this.drain(), atEnd };
  }

  /**
   * The file read as finished (a one-shot import; the follow, once it has been quiet a while): its
   * last line if it has no newline but is whole JSON (it is read again, with its newline, should
   * one come), then everything the reader still holds (a tool call without its result).
   */
  finish(warn: Warn): NormalizedEvent[] {
    const [tail] = this.splitter.end();
    // an overlong or non-UTF-8 last line is skipped whatever comes after it: counted (and warned) like any other
    if (tail && (tail.truncated || tail.invalidUtf8)) this.take(tail);
    else if (tail && tail.text.trim() !== '') {
      if (isJsonObject(tail.text)) this.take(tail);
      else warn(`${this.path}: its last line has no end yet (the agent may be writing it): read once it has one`);
    }
    this.splitter = new LineSplitter(this.maxLineBytes, 0);
    this.pending.push(...this.reader.end());
    return this.drain();
  }

  /** One warning per kind of line skipped (never a line's content: it may hold a secret). */
  warnSkipped(warn: Warn): void {
    const what = { malformed: 'not a JSON object (or not a record the reader knows the shape of)', tooLong: `longer than ${this.maxLineBytes / 1024 / 1024} MiB`, invalidUtf8: 'not UTF-8' } as const;
    for (const why of ['malformed', 'tooLong', 'invalidUtf8'] as const) {
      const n = this.skipped[why];
      if (n > 0) warn(`${this.path}: ${n} line${n === 1 ? '' : 's'} ${what[why]}, skipped (first: line ${this.first[why]})`);
    }
  }

  private drain(): NormalizedEvent[] {
    if (this.reader.settled) this.pending.push(...this.reader.settled());
    return this.pending.splice(0);
  }

  private take(line: Line): void {
    this.lines++;
    if (line.truncated) this.skip('tooLong');
    else if (line.invalidUtf8) this.skip('invalidUtf8');
    else if (line.text.trim() !== '') {
      try {
        const value: unknown = JSON.parse(line.text);
        if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
        this.pending.push(...this.reader.line(value as Record<string, unknown>));
      } catch {
        this.skip('malformed');
      }
    }
  }

  private skip(why: keyof Skipped): void {
    this.skipped[why]++;
    this.first[why] ??= this.lines;
  }
}

function isJsonObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

export interface FileResult {
  events: NormalizedEvent[];
  lines: number;
  /** lines skipped, by why */
  skipped: Skipped;
}

/** A whole session file read at once, from its start, as finished: what `beacon import` did before cursors. */
export function readSessionFile(store: SessionStore, file: { path: string }, warn: Warn, maxLineBytes = MAX_LINE_BYTES): FileResult {
  const opened = openSessionFile(file.path, warn);
  if (!opened) return { events: [], lines: 0, skipped: { malformed: 0, tooLong: 0, invalidUtf8: 0, unreadable: 1 } };
  const read = new SessionFileRead(store, file.path, { offset: 0 }, maxLineBytes);
  const events: NormalizedEvent[] = [];
  try {
    for (let r = read.step(opened.fd, Infinity); ; r = read.step(opened.fd, Infinity)) {
      events.push(...r.events);
      if (r.atEnd) break;
    }
    events.push(...read.finish(warn));
  } catch (e) {
    warn(`${file.path}: reading stopped at line ${read.lines + 1} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); what was read before is kept`);
  } finally {
    closeSync(opened.fd);
  }
  read.warnSkipped(warn);
  return { events, lines: read.lines, skipped: read.skipped };
}
