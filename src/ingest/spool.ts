import { randomBytes } from 'node:crypto';
import { readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { isBeaconError } from '../model/errors';
import { ensurePrivateDir, readChecked } from '../model/file-checks';
import { join } from 'node:path';
import { ROW_COLUMNS, type RowColumn } from '../store/log/columns';
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
  ensurePrivateDir(dir); // rows are the user's events: never into a directory another user reads or writes
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

/** Larger than any segment a hook or the stream adapter writes (a batch of 64 KiB-capped events). */
export const MAX_SEGMENT_BYTES = 256 * 1024 * 1024;

/**
 * A segment's rows. Throws `BadSegment` for a file that is not one of ours (it is set aside, never
 * retried): its rows are stored as they are, already redacted, so only a regular file of the
 * user's, written by no one else, is read — not another user's segment (unredacted, issue 22 item
 * 1), a symlink, or a FIFO named like a segment (which froze the collector's main thread).
 */
export function readSegment(path: string): EventRow[] {
  let text: string;
  try {
    text = readChecked(path, MAX_SEGMENT_BYTES).toString('utf8');
  } catch (e) {
    if (isBeaconError(e)) throw new BadSegment(e.message);
    throw e;
  }
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

/**
 * Moves a bad segment out of the way (kept for inspection, never ingested). False when it cannot be
 * moved (a directory already at `<segment>.bad`, a spool directory this user may not write): the
 * caller skips it from then on rather than reading and refusing it again and again.
 */
export function setAside(path: string): boolean {
  try {
    renameSync(path, `${path}.bad`);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT'; // gone already: out of the way too
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

const DECIMAL_I64 = /^\d{1,19}$/;

/** What a segment's JSON holds for each kind of column: a 64-bit one (ns) was written as a decimal string. */
const EXPECTED: Record<RowColumn['kind'], { ok: (v: unknown) => boolean; what: string }> = {
  text: { ok: (v) => typeof v === 'string', what: 'a string' },
  'text?': { ok: (v) => v === null || typeof v === 'string', what: 'a string or null' },
  'int?': { ok: (v) => v === null || typeof v === 'number', what: 'a number or null' },
  'real?': { ok: (v) => v === null || typeof v === 'number', what: 'a number or null' },
  ns: { ok: (v) => typeof v === 'string' && DECIMAL_I64.test(v), what: 'a time' },
};
const COLUMN_FIELDS = new Set<string>(ROW_COLUMNS.map((c) => c.field));

function checkRow(o: Record<string, unknown>, path: string): EventRow {
  const bad = (what: string) => new BadSegment(`spool segment ${path}: ${what}`);
  const row: Record<string, unknown> = { ...o, dropIfChatChildStored: o.dropIfChatChildStored === true, ...(o.mergeWithStored === true ? { mergeWithStored: true } : {}), ...(o.joinCall === true ? { joinCall: true } : {}) };
  for (const c of ROW_COLUMNS) {
    if (!EXPECTED[c.kind].ok(o[c.field])) throw bad(`${c.field} is not ${EXPECTED[c.kind].what}`);
    if (c.kind === 'ns') row[c.field] = BigInt(o[c.field] as string);
  }
  // A field the table does not know is kept as written (the INSERT never reads it); one named …Ns is a time too.
  for (const [k, v] of Object.entries(o)) {
    if (COLUMN_FIELDS.has(k) || !k.endsWith('Ns') || v === null) continue;
    if (typeof v !== 'string' || !DECIMAL_I64.test(v)) throw bad(`${k} is not a time`);
    row[k] = BigInt(v);
  }
  return row as unknown as EventRow;
}
