import type Database from 'better-sqlite3';

/** A reader's context at a resume point: small, content-free values (ids, a model name, flags), never a line's text. */
export type ReaderContext = Record<string, string | number | boolean>;

/**
 * What `beacon import` remembers of one session file (schema v7, `import_cursors`): which file it
 * was (device and inode), how far it was seen (size, mtime), where the last complete line ended
 * (`readOffset`) and where a fresh reader must start to rebuild what was still pending there
 * (`resumeOffset`, with the reader's `context` at that point).
 */
export interface FileCursor {
  path: string;
  harness: string;
  dev: string;
  ino: string;
  size: number;
  mtimeNs: bigint;
  readOffset: number;
  resumeOffset: number;
  context?: ReaderContext;
}

interface CursorRow {
  path: string;
  harness: string;
  dev: string;
  ino: string;
  size: bigint;
  mtime_ns: bigint;
  read_offset: bigint;
  resume_offset: bigint;
  context: string | null;
}

/** The cursors of one log: read on any connection (none before v7: a log not yet migrated has none), written on a writable one. */
export class ImportCursors {
  private select?: Database.Statement | null;
  private upsert?: Database.Statement;

  constructor(private readonly db: Database.Database) {}

  get(path: string): FileCursor | undefined {
    if (this.select === undefined) {
      const table = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'import_cursors'").get();
      this.select = table ? this.db.prepare('SELECT * FROM import_cursors WHERE path = ?').safeIntegers(true) : null;
    }
    const r = this.select?.get(path) as CursorRow | undefined;
    if (!r) return undefined;
    return {
      path: r.path, harness: r.harness, dev: r.dev, ino: r.ino, size: Number(r.size), mtimeNs: r.mtime_ns,
      readOffset: Number(r.read_offset), resumeOffset: Number(r.resume_offset), ...(r.context ? { context: parseContext(r.context) } : {}),
    };
  }

  put(c: FileCursor, nowNs: bigint = BigInt(Date.now()) * 1_000_000n): void {
    this.upsert ??= this.db.prepare(
      `INSERT INTO import_cursors (path, harness, dev, ino, size, mtime_ns, read_offset, resume_offset, context, updated_ns) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(path) DO UPDATE SET harness = excluded.harness, dev = excluded.dev, ino = excluded.ino, size = excluded.size, mtime_ns = excluded.mtime_ns,
         read_offset = excluded.read_offset, resume_offset = excluded.resume_offset, context = excluded.context, updated_ns = excluded.updated_ns`,
    );
    this.upsert.run(c.path, c.harness, c.dev, c.ino, c.size, c.mtimeNs, c.readOffset, c.resumeOffset, c.context ? JSON.stringify(c.context) : null, nowNs);
  }
}

function parseContext(json: string): ReaderContext | undefined {
  try {
    const v: unknown = JSON.parse(json);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    return Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean')) as ReaderContext;
  } catch {
    return undefined;
  }
}
