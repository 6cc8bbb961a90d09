import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EventRow } from '../store/log/row';

/**
 * The spool: where a writer outside the daemon (a hook, the stream adapter) puts rows it could not
 * commit within its lock budget, so nothing is dropped and goose is not held up. A directory beside
 * the log (`events.db.spool/`, 0700) of segments (0600), each written once and published by an
 * atomic rename, never rewritten: a reader never sees half a segment, and two writers never share
 * a file. The next writer that gets the lock, or the collector, commits a segment's rows and only
 * then removes it. Row ids are fixed before spooling, so a segment committed twice (two drainers,
 * a crash between commit and unlink) adds nothing the second time.
 */
export function spoolDir(logPath: string): string {
  return `${logPath}.spool`;
}

const SEGMENT = /^\d+-\d+-[0-9a-f]+\.rows$/;

/** Writes one segment holding `rows`; returns its path. */
export function spoolRows(logPath: string, rows: readonly EventRow[]): string {
  const dir = spoolDir(logPath);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = `${Date.now()}-${process.pid}-${randomBytes(6).toString('hex')}.rows`;
  const tmp = join(dir, `.${name}.tmp`);
  // 64-bit columns (tsNs) as decimal strings; readSegment turns them back.
  const body = rows.map((r) => JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))).join('\n') + '\n';
  writeFileSync(tmp, body, { mode: 0o600, flag: 'wx' });
  const path = join(dir, name);
  renameSync(tmp, path);
  return path;
}

/** Published segments, oldest first. */
export function spoolSegments(logPath: string): string[] {
  let names: string[];
  try {
    names = readdirSync(spoolDir(logPath));
  } catch {
    return []; // no spool: the common case, one failed readdir
  }
  return names.filter((n) => SEGMENT.test(n)).sort().map((n) => join(spoolDir(logPath), n));
}

export class BadSegment extends Error {}

/** A segment's rows. Throws `BadSegment` for a file that is not one of ours (it is set aside, never retried). */
export function readSegment(path: string): EventRow[] {
  const text = readFileSync(path, 'utf8');
  const rows: EventRow[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new BadSegment(`spool segment ${path} holds a line that is not JSON`);
    }
    rows.push(checkRow(o, path));
  }
  return rows;
}

/** Moves a bad segment out of the way (kept for inspection, never ingested). */
export function setAside(path: string): void {
  try {
    renameSync(path, `${path}.bad`);
  } catch {
    /* gone already */
  }
}

/** Removes a segment whose rows are committed. Another drainer may have removed it first. */
export function removeSegment(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

const STRING_COLUMNS = ['id', 'harness', 'method', 'action', 'record'] as const;
const NULLABLE_STRINGS = ['sessionId', 'traceId', 'spanId', 'parentSpanId', 'toolCallId', 'model', 'provider'] as const;
const NULLABLE_NUMBERS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheCreationTokens', 'reasoningTokens', 'costUsd'] as const;

function checkRow(o: Record<string, unknown>, path: string): EventRow {
  const bad = (what: string) => new BadSegment(`spool segment ${path}: ${what}`);
  for (const k of STRING_COLUMNS) if (typeof o[k] !== 'string') throw bad(`${k} is not a string`);
  for (const k of NULLABLE_STRINGS) if (o[k] !== null && typeof o[k] !== 'string') throw bad(`${k} is not a string or null`);
  for (const k of NULLABLE_NUMBERS) if (o[k] !== null && typeof o[k] !== 'number') throw bad(`${k} is not a number or null`);
  if (typeof o.tsNs !== 'string' || !/^\d{1,19}$/.test(o.tsNs)) throw bad('tsNs is not a time');
  // Every nanosecond column (`tsNs`, and any the schema adds, named …Ns) was written as a decimal string.
  const row: Record<string, unknown> = { ...o, dropIfChatChildStored: o.dropIfChatChildStored === true };
  for (const [k, v] of Object.entries(o)) {
    if (!k.endsWith('Ns') || v === null) continue;
    if (typeof v !== 'string' || !/^\d{1,19}$/.test(v)) throw bad(`${k} is not a time`);
    row[k] = BigInt(v);
  }
  return row as unknown as EventRow;
}
