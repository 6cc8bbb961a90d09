import type Database from 'better-sqlite3';
import { indexHint } from './indexes';
import { ACTIVITY_COLUMNS, ACTIVITY_FIELDS, parseRecord, type StoredActivity } from './tool-calls';

export interface EventSearch {
  /** case-insensitive substring of the stored record (text and field values alike) */
  q?: string;
  action?: string;
  method?: string;
  /** the agent (harness.name: goose, claude-code, codex…) */
  harness?: string;
  sessionId?: string;
  /** exact model, or a prefix of it */
  model?: string;
  /** tool name (gen_ai.tool.name or tool.name) */
  tool?: string;
  sinceNs?: bigint;
  untilNs?: bigint;
}

export interface EventCursor {
  tsNs: bigint;
  seq: bigint;
}

export interface EventSearchPage {
  events: StoredActivity[];
  /** continue here for older events; absent when the search reached the start of the log (or of the window) */
  next?: EventCursor;
  /** rows examined; a budget-limited page may hold fewer than `limit` events and still have a `next` */
  scanned: number;
  budgetExhausted: boolean;
}

export const SEARCH_SCAN_BUDGET = 50_000;

/**
 * Matching events, newest first, `limit` per page, continuing below `before`. The indexed parts
 * (session, time window) choose the rows in index order; at most `budget` of them are read, and the
 * other filters (action, path, model, tool, text) are applied by SQLite while reading them, so a
 * rare match costs a bounded read per page and the page says where the next one starts.
 */
export function searchEvents(db: Database.Database, s: EventSearch, opts: { before?: EventCursor; limit?: number; budget?: number } = {}): EventSearchPage {
  const limit = opts.limit ?? 50;
  const budget = Math.max(1, Math.floor(opts.budget ?? SEARCH_SCAN_BUDGET));
  const { where, params, index } = windowSql(db, s, opts.before);
  const filters: string[] = [];
  const fparams: unknown[] = [];
  if (s.action !== undefined) (filters.push('action = ?'), fparams.push(s.action));
  if (s.method !== undefined) (filters.push('method = ?'), fparams.push(s.method));
  if (s.harness !== undefined) (filters.push('harness = ?'), fparams.push(s.harness));
  if (s.model !== undefined) (filters.push('substr(model, 1, length(?)) = ?'), fparams.push(s.model, s.model));
  // LIKE is case-insensitive for ASCII, as a search box is; the needle's own % and _ are literal.
  if (s.q !== undefined) (filters.push("record LIKE ? ESCAPE '\\'"), fparams.push(`%${s.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
  if (s.tool !== undefined) (filters.push('instr(record, ?) > 0'), fparams.push(`"name":${JSON.stringify(s.tool)}`));
  // The window carries every column a filter below reads (model; harness is one the page shows) besides those the page shows.
  const win = `SELECT ${ACTIVITY_COLUMNS}, model FROM events ${index} ${where} ORDER BY ts_ns DESC, seq DESC LIMIT ?`;
  const rows = db
    .prepare(`SELECT ${ACTIVITY_FIELDS.join(', ')} FROM (${win}) ${filters.length ? `WHERE ${filters.join(' AND ')}` : ''} LIMIT ?`)
    .safeIntegers(true)
    .all(...params, budget, ...fparams, limit) as StoredActivity[];
  let events = rows;
  if (s.tool !== undefined) {
    // instr found the name somewhere; keep the events whose tool is exactly it.
    events = events.filter((e) => {
      const r = parseRecord(e.record);
      return r.gen_ai?.tool?.name === s.tool || r.tool?.name === s.tool;
    });
  }
  if (rows.length >= limit) {
    const last = rows[rows.length - 1]!;
    return { events, next: { tsNs: last.tsNs, seq: last.seq }, scanned: -1, budgetExhausted: false };
  }
  // Fewer than a page: either the window ran out of rows (the end), or the budget did (go on from its far end).
  const far = db
    .prepare(`SELECT seq, ts_ns FROM events ${index} ${where} ORDER BY ts_ns DESC, seq DESC LIMIT 1 OFFSET ?`)
    .safeIntegers(true)
    .raw(true)
    .get(...params, budget - 1) as [bigint, bigint] | undefined;
  if (!far) return { events, scanned: budget, budgetExhausted: false };
  const more = db.prepare(`SELECT 1 FROM events ${index} ${where} ${where ? 'AND' : 'WHERE'} (ts_ns < ? OR (ts_ns = ? AND seq < ?)) LIMIT 1`).get(...params, far[1], far[1], far[0]);
  return { events, next: more ? { tsNs: far[1], seq: far[0] } : undefined, scanned: budget, budgetExhausted: more !== undefined };
}

/** Every matching event, newest first, in chunks (for the JSONL download): never the whole log in memory. */
export function* iterateEvents(db: Database.Database, s: EventSearch, chunk = 2000): Generator<StoredActivity[]> {
  let before: EventCursor | undefined;
  for (;;) {
    const page = searchEvents(db, s, { before, limit: chunk, budget: Number.MAX_SAFE_INTEGER });
    if (page.events.length) yield page.events;
    if (!page.next) return;
    before = page.next;
  }
}

function windowSql(db: Database.Database, s: EventSearch, before: EventCursor | undefined): { where: string; params: unknown[]; index: string } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (s.sessionId !== undefined) (where.push('session_id = ?'), params.push(s.sessionId));
  if (s.sinceNs !== undefined) (where.push('ts_ns >= ?'), params.push(s.sinceNs));
  if (s.untilNs !== undefined) (where.push('ts_ns < ?'), params.push(s.untilNs));
  if (before) (where.push('(ts_ns < ? OR (ts_ns = ? AND seq < ?))'), params.push(before.tsNs, before.tsNs, before.seq));
  const index = s.sessionId !== undefined ? indexHint(db, 'events_session') : indexHint(db, 'events_ts');
  return { where: where.length ? `WHERE ${where.join(' AND ')}` : '', params, index };
}
