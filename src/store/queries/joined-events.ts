import { selectList } from '../log/columns';
import { INDEXED, type EventLog, type IndexedRow, type ListFilter } from '../log/event-log';
import { isToolAction, itemsHolding, joinToolCalls, type StoredActivity, type TimelineItem } from './tool-calls';

/**
 * `beacon events`' default rows: the matching events with every observation of a tool call
 * (pre-tool and post-tool hook, OTLP span, stream event, policy verdict) joined into one row by
 * `joinToolCalls`. The filters choose which events and calls appear; a chosen call's row is always
 * whole: the observations the filters left out (another path or action, outside the window or the
 * limit) are read too.
 */
export function listJoined(log: EventLog, filter: ListFilter, limit?: number): TimelineItem[] {
  if (limit === undefined) return joined(log, log.listIndexed(filter), filter);
  if (limit <= 0) return [];
  // The newest `limit` rows of the joined table. `m` records make at most `m` rows (fewer when calls
  // join), and a call's first observation may lie before them: read more until the rows cannot
  // change — the limit-th newest row starts at or after the oldest record read, so a record not yet
  // read (older still) could only add rows before it.
  for (let m = limit; ; m *= 4) {
    const rows = log.listIndexed({ ...filter, limit: m });
    const items = joined(log, rows, filter, true);
    const cut = items[items.length - limit];
    if (rows.length < m || (cut && !before(firstOf(cut), rows[0]!))) return items.slice(-limit);
  }
}

/**
 * How far around the observations in hand a call's others are looked for. goose's paths stamp a call
 * at its start (pre-tool hook, span) and end (post-tool hook): a call running longer than this shows
 * only the paths found within it.
 */
export const CALL_SPAN_NS = 24n * 3600n * 1_000_000_000n;

/**
 * The rows' items, each call whole. The completing read fetches every observation of the rows' keys
 * in a wide window, which may hold other calls under the same id (a reused id): only the items
 * holding a chosen row are kept.
 */
function joined(log: EventLog, rows: IndexedRow[], filter: ListFilter, limited = false): TimelineItem[] {
  const all = complete(log, rows, filter, limited);
  const items = joinToolCalls(all);
  return all.length === rows.length ? items : itemsHolding(items, new Set(rows.map((r) => r.seq)));
}

/** `rows` (time order) plus the stored observations of their tool calls that are not among them, in time order. */
function complete(log: EventLog, rows: IndexedRow[], filter: ListFilter, limited = false): StoredActivity[] {
  // Every path records goose's session id with the call, so a session filter (or none) leaves no
  // observation of a listed call out: only other filters and a limit call for a second read.
  const { sessionId: _session, ...narrowing } = filter;
  if (!limited && Object.values(narrowing).every((v) => v === undefined)) return rows;
  // per session and harness (a call id names a call within both: callKey)
  const calls = new Map<string, { session: string | null; harness: string; ids: Set<string>; lo: bigint; hi: bigint }>();
  for (const r of rows) {
    if (r.toolCallId === null || !isToolAction(r.action)) continue;
    const group = JSON.stringify([r.sessionId, r.harness]);
    const c = calls.get(group) ?? { session: r.sessionId, harness: r.harness, ids: new Set<string>(), lo: r.tsNs, hi: r.tsNs };
    c.ids.add(r.toolCallId);
    if (r.tsNs < c.lo) c.lo = r.tsNs;
    if (r.tsNs > c.hi) c.hi = r.tsNs;
    calls.set(group, c);
  }
  if (calls.size === 0) return rows;
  const have = new Set(rows.map((r) => r.seq));
  // One read per session of its index range around the calls (events_session), the ids as a JSON
  // array; it returns commit numbers alone, and only the records not in hand are read after it.
  const ids = 'harness = ? AND tool_call_id IN (SELECT value FROM json_each(?))';
  const inSession = log.db.prepare(`SELECT seq FROM events WHERE session_id = ? AND ts_ns >= ? AND ts_ns <= ? AND ${ids}`).pluck().safeIntegers(true);
  const noSession = log.db.prepare(`SELECT seq FROM events WHERE session_id IS NULL AND ts_ns >= ? AND ts_ns <= ? AND ${ids}`).pluck().safeIntegers(true);
  const missing: string[] = [];
  for (const c of calls.values()) {
    const range = [c.lo - CALL_SPAN_NS, c.hi + CALL_SPAN_NS, c.harness, JSON.stringify([...c.ids])];
    const found = (c.session === null ? noSession.all(...range) : inSession.all(c.session, ...range)) as bigint[];
    for (const seq of found) if (!have.has(seq)) missing.push(String(seq));
  }
  if (missing.length === 0) return rows;
  const extra = log.db.prepare(`SELECT ${selectList(INDEXED)} FROM events WHERE seq IN (SELECT value FROM json_each(?))`).safeIntegers(true).all(`[${missing.join(',')}]`) as StoredActivity[];
  return [...rows, ...extra.filter((r) => isToolAction(r.action))].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
}

function firstOf(item: TimelineItem): StoredActivity {
  return item.kind === 'event' ? item.event : item.observations[0]!.event;
}

/** a is stored before b in the table's order: event time, then commit order */
function before(a: { tsNs: bigint; seq: bigint }, b: { tsNs: bigint; seq: bigint }): boolean {
  return a.tsNs < b.tsNs || (a.tsNs === b.tsNs && a.seq < b.seq);
}
