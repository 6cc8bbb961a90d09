import { closeSync, existsSync, fdatasyncSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
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
 */
export class JsonlExporter {
  private fd = -1;
  private size = 0;
  private cursor = 0n;

  constructor(private readonly log: EventLog, private readonly options: ExportOptions) {}

  /** Opens the file and finds where the export stopped. */
  open(): bigint {
    mkdirSync(dirname(this.options.path), { recursive: true, mode: 0o700 });
    const last = lastSequence(this.options.path, true) ?? lastSequence(`${this.options.path}.1`, false);
    this.cursor = last ?? this.log.maxSeq();
    this.openActive();
    return this.cursor;
  }

  get position(): bigint {
    return this.cursor;
  }

  /** Appends up to `maxRows` committed events after the cursor; returns how many. */
  exportPending(maxRows = 2000): number {
    const rows = this.log.list({ afterSeq: this.cursor, order: 'seq', limit: maxRows });
    if (rows.length === 0) return 0;
    let chunk: string[] = [];
    let chunkBytes = 0;
    const flush = () => {
      if (chunk.length === 0) return;
      const buf = Buffer.from(chunk.join(''), 'utf8');
      writeSync(this.fd, buf);
      this.size += buf.length;
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
    }
    flush();
    fdatasyncSync(this.fd);
    this.cursor = rows[rows.length - 1]!.seq;
    return rows.length;
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }

  private openActive(): void {
    this.fd = openSync(this.options.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private rotate(): void {
    closeSync(this.fd);
    const p = this.options.path;
    const n = this.options.archives;
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
 * The `sequence` of the last complete line of a file. With `repair`, a torn last line (a crash
 * mid-write) is cut off so the export resumes cleanly after the line before it.
 */
function lastSequence(path: string, repair: boolean): bigint | undefined {
  if (!existsSync(path) || statSync(path).size === 0) return undefined;
  const fd = openSync(path, repair ? 'r+' : 'r');
  try {
    const size = fstatSync(fd).size;
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
  } finally {
    closeSync(fd);
  }
}
