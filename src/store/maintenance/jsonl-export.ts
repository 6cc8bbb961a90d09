import { closeSync, constants, existsSync, fdatasyncSync, fstatSync, ftruncateSync, lstatSync, readSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { checkOwnFileIfPresent, checkPrivateDir, ensurePrivateDir, openChecked } from '../../model/file-checks';
import type { EventLog } from '../log/event-log';

export interface ExportOptions {
  path: string;
  /** rotate before a line would take the active file past this size */
  rotateBytes: number;
  /** rotated files kept (.1 newest … .N oldest) */
  archives: number;
}

/**
 * A Beacon-compatible `runtime.jsonl`, fed from the event log in commit order so that every
 * writer's events (hooks and stream adapter too) reach SIEM shippers that tail files.
 *
 * The file is its own cursor: each line carries the log's commit `sequence`, and on start the last
 * complete line says where to resume (a torn last line is cut off first), so after a restart or a
 * crash nothing is missed and nothing repeated. A new export starts at the log's current end;
 * `beacon events --json --since T` exports older events on demand.
 *
 * It holds the same prompts and commands as the log, so it is checked as the log is
 * (model/file-checks.ts, issue 29 item 6): its directory is the user's and nobody else may write
 * it, every file is opened without following a symlink and judged by fstat, and a rotation first
 * checks every archive name, so a link another user planted is neither written through nor renamed
 * along. A refusal throws `unsafe_file` and nothing is written.
 */
export class JsonlExporter {
  private fd = -1;
  private size = 0;
  private cursor = 0n;

  constructor(private readonly log: EventLog, private readonly options: ExportOptions) {}

  /**
   * Checks and opens the file and finds where the export stopped; a file with no line yet starts
   * after `fresh` (default: the log's end now). Throws `unsafe_file` when the path is refused.
   */
  open(fresh?: bigint): bigint {
    this.close();
    ensurePrivateDir(dirname(this.options.path));
    this.checkArchives();
    this.openActive();
    const last = lastSequence(this.fd, true) ?? this.archivedSequence();
    this.size = fstatSync(this.fd).size; // after the repair
    this.cursor = last ?? fresh ?? this.log.maxSeq();
    return this.cursor;
  }

  get isOpen(): boolean {
    return this.fd >= 0;
  }

  get position(): bigint {
    return this.cursor;
  }

  /** Appends up to `maxRows` committed events after the cursor; returns how many. */
  exportPending(maxRows = 2000): number {
    if (this.fd < 0) throw new Error(`the export ${this.options.path} is not open`);
    const rows = this.log.list({ afterSeq: this.cursor, order: 'seq', limit: maxRows });
    if (rows.length === 0) return 0;
    let chunk: string[] = [];
    let chunkBytes = 0;
    let chunkLast = this.cursor;
    const flush = () => {
      if (chunk.length === 0) return;
      const buf = Buffer.from(chunk.join(''), 'utf8');
      writeSync(this.fd, buf);
      this.size += buf.length;
      this.cursor = chunkLast; // written: a rotation refused after this does not write these lines twice
      chunk = [];
      chunkBytes = 0;
    };
    for (const r of rows) {
      const line = `${exportLine(r.seq, r.record)}\n`;
      const bytes = Buffer.byteLength(line, 'utf8');
      if (this.size + chunkBytes > 0 && this.size + chunkBytes + bytes > this.options.rotateBytes) {
        flush();
        this.rotate();
      }
      chunk.push(line);
      chunkBytes += bytes;
      chunkLast = r.seq;
    }
    flush();
    fdatasyncSync(this.fd);
    return rows.length;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  /** O_NOFOLLOW, fstat'ed: a symlink, a FIFO, another user's file or one others may write is refused; one others may read is made 0600. */
  private openActive(): void {
    this.fd = openChecked(this.options.path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o600, { secret: true, onTightened: (m) => process.emitWarning(m, 'BeaconWarning') });
    this.size = fstatSync(this.fd).size;
  }

  /** Every archive name that exists is a regular file of the user's (checked without following links). */
  private checkArchives(): void {
    for (let k = 1; k <= this.options.archives; k++) checkOwnFileIfPresent(`${this.options.path}.${k}`);
  }

  /** Where the newest archive ends: the active file was just rotated (or emptied) before a stop. */
  private archivedSequence(): bigint | undefined {
    const archive = `${this.options.path}.1`;
    if (this.options.archives < 1 || !checkOwnFileIfPresent(archive)) return undefined;
    const fd = openChecked(archive, constants.O_RDONLY);
    try {
      return lastSequence(fd, false);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Checks first (the directory may have been opened to others since the start, a link planted at
   * an archive name), then closes and renames: a refusal leaves every file where it was, closed.
   */
  private rotate(): void {
    const p = this.options.path;
    const n = this.options.archives;
    try {
      checkPrivateDir(dirname(p));
      checkOwnFileIfPresent(p); // a regular file of ours, not a link put in its place…
      if (!sameFile(lstatSync(p, { throwIfNoEntry: false }), fstatSync(this.fd))) {
        // …and the very file opened: another one renamed in would be carried along as an archive
        throw new Error(`refusing to rotate ${p}: it is no longer the file this export opened. Fix: move it aside (mv '${p}' '${p}.untrusted')`);
      }
      this.checkArchives();
    } catch (e) {
      this.close();
      throw e;
    }
    this.close();
    if (n <= 0) unlinkSync(p);
    else {
      if (existsSync(`${p}.${n}`)) unlinkSync(`${p}.${n}`);
      for (let k = n - 1; k >= 1; k--) if (existsSync(`${p}.${k}`)) renameSync(`${p}.${k}`, `${p}.${k + 1}`);
      renameSync(p, `${p}.1`);
    }
    this.openActive();
  }
}

/**
 * One exported record: the stored record with `sequence` first — the Go Beacon's envelope field,
 * here the log's commit order. `runtime.jsonl` and `beacon events --json` print the same lines.
 */
export function exportLine(seq: bigint, record: string): string {
  return `{"sequence":${seq},${record.slice(1)}`;
}

/**
 * The `sequence` of the last complete line of an open file. With `repair`, a torn last line (a
 * crash mid-write) is cut off so the export resumes cleanly after the line before it.
 */
function lastSequence(fd: number, repair: boolean): bigint | undefined {
  const size = fstatSync(fd).size;
  if (size === 0) return undefined;
  const window = Math.min(size, 256 * 1024);
  const buf = Buffer.alloc(window);
  readSync(fd, buf, 0, window, size - window);
  let end = window;
  if (buf[window - 1] !== 0x0a) {
    const lastNl = buf.lastIndexOf(0x0a);
    end = lastNl + 1; // 0 when the whole window is one torn line
    if (repair) ftruncateSync(fd, size - window + end);
  }
  const text = buf.toString('utf8', 0, end);
  const lines = text.split('\n').filter(Boolean);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = /^\{"sequence":(\d+),/.exec(lines[i]!);
    if (m) return BigInt(m[1]!);
  }
  return undefined;
}

/** Whether a path's lstat and an open descriptor's fstat name the same inode. */
function sameFile(a: Stats | undefined, b: Stats): boolean {
  return a !== undefined && a.dev === b.dev && a.ino === b.ino;
}
