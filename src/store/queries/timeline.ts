import type Database from 'better-sqlite3';
import { indexHint } from './indexes';
import { ACTIVITY_COLUMNS, itemsHolding, joinToolCalls, type StoredActivity, type TimelineItem } from './tool-calls';

export interface TimelinePage {
  items: TimelineItem[];
  /** where the next page starts, when the session has more events than one page */
  next?: { tsNs: bigint; seq: bigint };
  events: number;
}

/**
 * A session in time order, one item per prompt, model call or other event, and **one item per tool
 * call** joining its observations by harness and `tool_call_id` (hook pre-tool and post-tool, OTLP
 * span, stream event, policy decision; a reused id is told apart as `joinToolCalls` says). Reads the session index; pages of `limit` events. The observations of a
 * call on this page that were stored after the page's end are fetched too, so a row is complete.
 */
export function sessionTimeline(db: Database.Database, sessionId: string, opts: { after?: { tsNs: bigint; seq: bigint }; limit?: number } = {}): TimelinePage {
  const limit = opts.limit ?? 2000;
  const after = opts.after;
  const rows = db
    .prepare(
      `SELECT ${ACTIVITY_COLUMNS} FROM events ${indexHint(db, 'events_session')}
       WHERE session_id = ? ${after ? 'AND (ts_ns > ? OR (ts_ns = ? AND seq > ?))' : ''} ORDER BY ts_ns, seq LIMIT ?`,
    )
    .safeIntegers(true)
    .all(...(after ? [sessionId, after.tsNs, after.tsNs, after.seq, limit + 1] : [sessionId, limit + 1])) as StoredActivity[];
  let next: TimelinePage['next'];
  let page: Set<bigint> | undefined;
  if (rows.length > limit) {
    rows.length = limit;
    const last = rows[limit - 1]!;
    next = { tsNs: last.tsNs, seq: last.seq };
    page = new Set(rows.map((r) => r.seq));
    // Complete the calls begun on this page with observations stored after it.
    // One read for all of them (not one per call id): ~20 observations a call at most.
    const open = [...new Set(rows.filter((r) => r.toolCallId !== null).map((r) => r.toolCallId!))];
    if (open.length > 0) {
      const more = db.prepare(
        `SELECT ${ACTIVITY_COLUMNS} FROM events ${indexHint(db, 'events_session')}
         WHERE session_id = ? AND tool_call_id IN (SELECT value FROM json_each(?)) AND (ts_ns > ? OR (ts_ns = ? AND seq > ?)) ORDER BY ts_ns, seq LIMIT ?`,
      ).safeIntegers(true);
      rows.push(...(more.all(sessionId, JSON.stringify(open), last.tsNs, last.tsNs, last.seq, open.length * 20) as StoredActivity[]));
    }
  }
  // The completing read may bring the next page's calls under a reused id: they stay on their page.
  const items = joinToolCalls(rows);
  return { items: page ? itemsHolding(items, page) : items, next, events: rows.length };
}
