import type Database from 'better-sqlite3';
import { queryUsage, type UsageFilter, type UsageGrouping, type UsageRow } from './usage';

/** Where usage sums come from: `queryUsage` (the index), or a `UsageRollup` kept in memory by a long-lived reader. */
export type UsageSource = (filter: UsageFilter, by: UsageGrouping) => UsageRow[];

/**
 * What happened, read for people: sessions, a session's timeline with every observation of a tool
 * call joined into one row, and an event search that pages newest first. Used by the dashboard and
 * meant for the CLI too (`beacon sessions`, a one-row-per-call `beacon events`).
 *
 * Every query is bounded on the one-million-event log: it reads an index range (a session, a time
 * window, the usage index) or scans newest-first under a row budget and says where it stopped, so a
 * request never costs a full scan of the log.
 */

// ---------------------------------------------------------------------------------------------
// Sessions

export interface SessionFilter {
  sinceNs?: bigint;
  untilNs?: bigint;
  /** exact repository (working directory) as recorded */
  repository?: string;
  /** sessions with a model call of this model (exact or prefix, as token-usage matches) */
  model?: string;
}

export type SessionSort = 'start' | 'end' | 'duration' | 'events' | 'model_calls' | 'tokens';
export const SESSION_SORTS: readonly SessionSort[] = ['start', 'end', 'duration', 'events', 'model_calls', 'tokens'];

export interface SessionSummary {
  id: string;
  firstNs: bigint;
  lastNs: bigint;
  events: number;
  /** model calls in the window with their token sums, one row per (model, provider): price them with src/pricing */
  usage: UsageRow[];
  modelCalls: number;
  tokens: number;
  repository: string | null;
  branch: string | null;
  harness: string | null;
  /** the page's sessions only (see listSessions) */
  detail?: SessionDetail;
}

export interface SessionDetail {
  /** tool calls by kind (the classified action: command.executed, file.modified, …); one call counts once however many paths saw it */
  toolCalls: Record<string, number>;
  failedCalls: number;
  deniedCalls: number;
  prompts: number;
  methods: string[];
  events: number;
}

/** Details of sessions already read, by id, with the last event time they were read at (a long-lived reader keeps one). */
export type SessionDetailCache = Map<string, { lastNs: bigint; detail: SessionDetail }>;

export interface SessionPage {
  total: number;
  sessions: SessionSummary[];
}

/**
 * Sessions overlapping the window, sorted and paged. Bounds and counts come from the session index
 * alone, tokens from the usage index; the repository is one indexed lookup per session; the costly
 * part (tool calls by kind, failures) is computed for the returned page only.
 */
export function listSessions(
  db: Database.Database,
  filter: SessionFilter,
  opts: { sort?: SessionSort; desc?: boolean; limit?: number; offset?: number; usage?: UsageSource; detailCache?: SessionDetailCache } = {},
): SessionPage {
  // Distinct sessions by skip-scan of the session index (one seek per session), each one's first
  // and last event by two more seeks: a few thousand index reads, never the index's million entries.
  const idx = hint(db, 'events_session');
  const nextId = db.prepare(`SELECT session_id FROM events ${idx} WHERE session_id > ? ORDER BY session_id LIMIT 1`).pluck();
  const firstTs = db.prepare(`SELECT ts_ns FROM events ${idx} WHERE session_id = ? ORDER BY ts_ns LIMIT 1`).pluck().safeIntegers(true);
  const lastTs = db.prepare(`SELECT ts_ns FROM events ${idx} WHERE session_id = ? ORDER BY ts_ns DESC LIMIT 1`).pluck().safeIntegers(true);
  const countOf = db.prepare(`SELECT count(*) FROM events ${idx} WHERE session_id = ?`).pluck();
  const bounds: { id: string; firstNs: bigint; lastNs: bigint }[] = [];
  for (let id = db.prepare(`SELECT min(session_id) FROM events ${idx}`).pluck().get() as string | null; id !== null && id !== undefined; id = nextId.get(id) as string | undefined ?? null) {
    const lastNs = lastTs.get(id) as bigint;
    if (filter.sinceNs !== undefined && lastNs < filter.sinceNs) continue;
    const firstNs = firstTs.get(id) as bigint;
    if (filter.untilNs !== undefined && firstNs >= filter.untilNs) continue;
    bounds.push({ id, firstNs, lastNs });
  }

  const usage = new Map<string, UsageRow[]>();
  const usageOf: UsageSource = opts.usage ?? ((f, by) => queryUsage(db, f, by));
  for (const r of usageOf({ sinceNs: filter.sinceNs, untilNs: filter.untilNs, model: filter.model }, 'session')) {
    if (r.grp === null) continue;
    const id = String(r.grp);
    const list = usage.get(id) ?? [];
    list.push(r);
    usage.set(id, list);
  }
  let sessions: SessionSummary[] = [];
  for (const b of bounds) {
    const u = usage.get(b.id) ?? [];
    if (filter.model !== undefined && u.length === 0) continue;
    const s: SessionSummary = {
      id: b.id, firstNs: b.firstNs, lastNs: b.lastNs, events: -1, usage: u,
      modelCalls: u.reduce((a, r) => a + r.calls, 0), tokens: u.reduce((a, r) => a + r.input + r.output + r.cacheRead + r.cacheWrite, 0),
      repository: null, branch: null, harness: null,
    };
    sessions.push(s);
  }
  // The repository of every candidate only when filtering on it; otherwise for the page alone.
  const fillOrigin = (s: SessionSummary) => Object.assign(s, sessionOrigin(db, s.id));
  if (filter.repository !== undefined) {
    sessions.forEach(fillOrigin);
    sessions = sessions.filter((s) => s.repository === filter.repository);
  }
  const sort = opts.sort ?? 'end';
  // Event counts are a range count per session: for every candidate only when sorting by them.
  if (sort === 'events') for (const s of sessions) s.events = countOf.get(s.id) as number;
  const key = (s: SessionSummary): number | bigint =>
    sort === 'start' ? s.firstNs : sort === 'end' ? s.lastNs : sort === 'duration' ? s.lastNs - s.firstNs : sort === 'events' ? s.events : sort === 'model_calls' ? s.modelCalls : s.tokens;
  const dir = opts.desc === false ? 1 : -1;
  sessions.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return (ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : 1) * dir;
  });
  const offset = opts.offset ?? 0;
  const page = sessions.slice(offset, offset + (opts.limit ?? 50));
  for (const s of page) {
    if (filter.repository === undefined) fillOrigin(s);
    // A session's detail changes only with new events, which move its last event time.
    const cached = opts.detailCache?.get(s.id);
    s.detail = cached && cached.lastNs === s.lastNs ? cached.detail : sessionDetail(db, s.id);
    if (opts.detailCache && cached?.detail !== s.detail) {
      if (opts.detailCache.size >= 10_000) opts.detailCache.clear();
      opts.detailCache.set(s.id, { lastNs: s.lastNs, detail: s.detail });
    }
    s.events = s.detail.events;
  }
  return { total: sessions.length, sessions: page };
}

/** Where a session ran: the first recorded repository (working directory) and branch, and its harness. One indexed read. */
export function sessionOrigin(db: Database.Database, sessionId: string): { repository: string | null; branch: string | null; harness: string | null } {
  const o = db
    .prepare(
      `SELECT json_extract(record, '$.repository') AS repository, json_extract(record, '$.branch') AS branch, harness
       FROM events ${hint(db, 'events_session')} WHERE session_id = ? AND json_extract(record, '$.repository') IS NOT NULL ORDER BY ts_ns LIMIT 1`,
    )
    .get(sessionId) as { repository: unknown; branch: unknown; harness: string } | undefined;
  const harness = o?.harness ?? (db.prepare(`SELECT harness FROM events ${hint(db, 'events_session')} WHERE session_id = ? LIMIT 1`).pluck().get(sessionId) as string | undefined) ?? null;
  return { repository: typeof o?.repository === 'string' ? o.repository : null, branch: typeof o?.branch === 'string' ? o.branch : null, harness };
}

function sessionDetail(db: Database.Database, sessionId: string): SessionDetail {
  const rows = db
    .prepare(
      `SELECT action, method, tool_call_id AS callId,
        CASE WHEN action = 'command.executed' THEN coalesce(json_extract(record, '$.command.exit_code'), 0) <> 0 ELSE 0 END AS nonZero
       FROM events ${hint(db, 'events_session')} WHERE session_id = ?`,
    )
    .all(sessionId) as { action: string; method: string; callId: string | null; nonZero: number }[];
  const calls = new Map<string, { kind?: string; failed: boolean; denied: boolean }>();
  const methods = new Set<string>();
  let prompts = 0;
  let anonymous = 0;
  const detail: SessionDetail = { toolCalls: {}, failedCalls: 0, deniedCalls: 0, prompts: 0, methods: [], events: rows.length };
  for (const r of rows) {
    methods.add(r.method);
    if (r.action === 'prompt.submitted') prompts++;
    if (!isToolAction(r.action)) continue;
    const id = r.callId ?? `\u0000${anonymous++}`;
    const c = calls.get(id) ?? { failed: false, denied: false };
    if (r.action === 'tool.failed' || r.nonZero) c.failed = true;
    if (r.action === 'approval.denied') c.denied = true;
    if (r.action !== 'tool.invoked' && r.action !== 'tool.failed' && r.action !== 'approval.denied') c.kind = r.action;
    calls.set(id, c);
  }
  for (const c of calls.values()) {
    const kind = c.kind ?? (c.denied ? 'denied' : 'tool');
    detail.toolCalls[kind] = (detail.toolCalls[kind] ?? 0) + 1;
    if (c.failed) detail.failedCalls++;
    if (c.denied) detail.deniedCalls++;
  }
  detail.prompts = prompts;
  detail.methods = [...methods].sort();
  return detail;
}

const TOOL_ACTIONS = new Set(['tool.invoked', 'tool.failed', 'approval.denied', 'command.executed']);

/** Actions that are (an observation of) a tool call: the taxonomy's tool actions plus the hook's pre-tool and the policy's verdict. */
export function isToolAction(action: string): boolean {
  return TOOL_ACTIONS.has(action) || action.startsWith('file.') || action.startsWith('mcp.');
}

// ---------------------------------------------------------------------------------------------
// Session timeline

export interface StoredActivity {
  seq: bigint;
  tsNs: bigint;
  method: string;
  action: string;
  toolCallId: string | null;
  /** the Beacon record JSON, as stored (hostile content: escape before rendering) */
  record: string;
}

/** Which collection path saw a tool call, and as what. */
export type Observer = 'pre-tool' | 'post-tool' | 'otlp' | 'stream' | 'policy';

export interface ToolCallRow {
  kind: 'tool_call';
  callId: string | null;
  firstNs: bigint;
  /** every stored observation of the call, in time order */
  observations: { observer: Observer; event: StoredActivity; record: Record<string, any> }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  seenBy: Observer[];
  /** the classified action (command.executed, file.modified, …), from whichever path classified it */
  action: string | null;
  toolName: string | null;
  failed: boolean;
  denied: boolean;
  /** a pre-tool observation with no result from any path: denied, still running, or never finished */
  unfinished: boolean;
}

export interface EventRowItem {
  kind: 'event';
  event: StoredActivity;
  record: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export type TimelineItem = ToolCallRow | EventRowItem;

export interface TimelinePage {
  items: TimelineItem[];
  /** where the next page starts, when the session has more events than one page */
  next?: { tsNs: bigint; seq: bigint };
  events: number;
}

/**
 * A session in time order, one item per prompt, model call or other event, and **one item per tool
 * call** joining its observations by `tool_call_id` (hook pre-tool and post-tool, OTLP span, stream
 * event, policy decision). Reads the session index; pages of `limit` events. The observations of a
 * call on this page that were stored after the page's end are fetched too, so a row is complete.
 */
export function sessionTimeline(db: Database.Database, sessionId: string, opts: { after?: { tsNs: bigint; seq: bigint }; limit?: number } = {}): TimelinePage {
  const limit = opts.limit ?? 2000;
  const after = opts.after;
  const rows = db
    .prepare(
      `SELECT seq, ts_ns AS tsNs, method, action, tool_call_id AS toolCallId, record FROM events ${hint(db, 'events_session')}
       WHERE session_id = ? ${after ? 'AND (ts_ns > ? OR (ts_ns = ? AND seq > ?))' : ''} ORDER BY ts_ns, seq LIMIT ?`,
    )
    .safeIntegers(true)
    .all(...(after ? [sessionId, after.tsNs, after.tsNs, after.seq, limit + 1] : [sessionId, limit + 1])) as StoredActivity[];
  let next: TimelinePage['next'];
  if (rows.length > limit) {
    rows.length = limit;
    const last = rows[limit - 1]!;
    next = { tsNs: last.tsNs, seq: last.seq };
    // Complete the calls begun on this page with observations stored after it.
    // One read for all of them (not one per call id): ~20 observations a call at most.
    const open = [...new Set(rows.filter((r) => r.toolCallId !== null).map((r) => r.toolCallId!))];
    if (open.length > 0) {
      const more = db.prepare(
        `SELECT seq, ts_ns AS tsNs, method, action, tool_call_id AS toolCallId, record FROM events ${hint(db, 'events_session')}
         WHERE session_id = ? AND tool_call_id IN (SELECT value FROM json_each(?)) AND (ts_ns > ? OR (ts_ns = ? AND seq > ?)) ORDER BY ts_ns, seq LIMIT ?`,
      ).safeIntegers(true);
      rows.push(...(more.all(sessionId, JSON.stringify(open), last.tsNs, last.tsNs, last.seq, open.length * 20) as StoredActivity[]));
    }
  }
  return { items: joinToolCalls(rows), next, events: rows.length };
}

/** Folds events (in time order) into timeline items: every observation of one call id becomes one row, at its first observation. */
export function joinToolCalls(events: readonly StoredActivity[]): TimelineItem[] {
  const items: TimelineItem[] = [];
  const calls = new Map<string, ToolCallRow>();
  for (const ev of events) {
    const record = parseRecord(ev.record);
    if (!isToolAction(ev.action)) {
      items.push({ kind: 'event', event: ev, record });
      continue;
    }
    let row = ev.toolCallId !== null ? calls.get(ev.toolCallId) : undefined;
    if (!row) {
      row = { kind: 'tool_call', callId: ev.toolCallId, firstNs: ev.tsNs, observations: [], seenBy: [], action: null, toolName: null, failed: false, denied: false, unfinished: false };
      items.push(row);
      if (ev.toolCallId !== null) calls.set(ev.toolCallId, row);
    }
    const observer = observerOf(ev);
    row.observations.push({ observer, event: ev, record });
    if (!row.seenBy.includes(observer)) row.seenBy.push(observer);
    const name = record.gen_ai?.tool?.name ?? record.tool?.name;
    if (typeof name === 'string' && row.toolName === null) row.toolName = name;
    if (ev.action === 'approval.denied') row.denied = true;
    else if (ev.action === 'tool.failed') row.failed = true;
    else if (ev.action !== 'tool.invoked') {
      if (row.action === null || ev.method === 'hook') row.action = ev.action;
      const exit = record.command?.exit_code;
      if (typeof exit === 'number' && exit !== 0) row.failed = true;
    }
  }
  for (const it of items) {
    if (it.kind !== 'tool_call') continue;
    // Only observations that report an outcome count as a result: pre-tool and the policy's verdict do not.
    const results = it.observations.filter((o) => o.observer !== 'pre-tool' && o.observer !== 'policy');
    it.unfinished = it.seenBy.includes('pre-tool') && results.length === 0;
  }
  return items;
}

function observerOf(ev: StoredActivity): Observer {
  if (ev.action === 'approval.denied') return 'policy';
  if (ev.method === 'hook') return ev.action === 'tool.invoked' ? 'pre-tool' : 'post-tool';
  return ev.method === 'stream' ? 'stream' : 'otlp';
}

function parseRecord(json: string): Record<string, any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    const v = JSON.parse(json);
    return typeof v === 'object' && v !== null ? v : {};
  } catch {
    return {};
  }
}

// ---------------------------------------------------------------------------------------------
// Event search

export interface EventSearch {
  /** case-insensitive substring of the stored record (text and field values alike) */
  q?: string;
  action?: string;
  method?: string;
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
  if (s.model !== undefined) (filters.push('substr(model, 1, length(?)) = ?'), fparams.push(s.model, s.model));
  // LIKE is case-insensitive for ASCII, as a search box is; the needle's own % and _ are literal.
  if (s.q !== undefined) (filters.push("record LIKE ? ESCAPE '\\'"), fparams.push(`%${s.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
  if (s.tool !== undefined) (filters.push('instr(record, ?) > 0'), fparams.push(`"name":${JSON.stringify(s.tool)}`));
  const win = `SELECT seq, ts_ns, method, action, tool_call_id, record FROM events ${index} ${where} ORDER BY ts_ns DESC, seq DESC LIMIT ?`;
  const rows = db
    .prepare(`SELECT seq, ts_ns, method, action, tool_call_id, record FROM (${win}) ${filters.length ? `WHERE ${filters.join(' AND ')}` : ''} LIMIT ?`)
    .safeIntegers(true)
    .raw(true)
    .all(...params, budget, ...fparams, limit) as [bigint, bigint, string, string, string | null, string][];
  let events: StoredActivity[] = rows.map(([seq, tsNs, method, action, toolCallId, record]) => ({ seq, tsNs, method, action, toolCallId, record }));
  if (s.tool !== undefined) {
    // instr found the name somewhere; keep the events whose tool is exactly it.
    events = events.filter((e) => {
      const r = parseRecord(e.record);
      return r.gen_ai?.tool?.name === s.tool || r.tool?.name === s.tool;
    });
  }
  if (rows.length >= limit) {
    const last = rows[rows.length - 1]!;
    return { events, next: { tsNs: last[1], seq: last[0] }, scanned: -1, budgetExhausted: false };
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
  const index = s.sessionId !== undefined ? hint(db, 'events_session') : hint(db, 'events_ts');
  return { where: where.length ? `WHERE ${where.join(' AND ')}` : '', params, index };
}

// ---------------------------------------------------------------------------------------------
// Small facts for the overview and live updates

/** The newest commit's sequence: the end of the rowid b-tree, one page read. */
export function newestSeq(db: Database.Database): bigint {
  return (db.prepare('SELECT coalesce(max(seq), 0) FROM events').pluck().safeIntegers(true).get() as bigint);
}

/** The newest commit's sequence and how many events were committed after `sinceSeq` (a rowid range: cheap for a recent `sinceSeq`). */
export function changesSince(db: Database.Database, sinceSeq: bigint, cap = 10_000): { seq: bigint; newEvents: number } {
  const seq = newestSeq(db);
  // Counted up to `cap` (the page shows "10,000+"): a stale or zero `since` must not count the whole log.
  const n = seq > sinceSeq ? (db.prepare('SELECT count(*) FROM (SELECT 1 FROM events WHERE seq > ? LIMIT ?)').pluck().get(sinceSeq, cap) as number) : 0;
  return { seq: seq > sinceSeq ? seq : sinceSeq, newEvents: n };
}

export const RECENT_WINDOW = 20_000;

/** The last event time per collection path among the newest `window` events (a bounded read of the time index). */
export function lastEventByMethod(db: Database.Database, window = RECENT_WINDOW): Record<string, bigint> {
  const rows = db
    .prepare(`SELECT method, max(ts_ns) AS ts FROM (SELECT method, ts_ns FROM events ${hint(db, 'events_ts')} ORDER BY ts_ns DESC LIMIT ?) GROUP BY method`)
    .safeIntegers(true)
    .all(window) as { method: string; ts: bigint }[];
  return Object.fromEntries(rows.map((r) => [r.method, r.ts]));
}

export interface AttentionItem {
  seq: bigint;
  tsNs: bigint;
  action: string;
  sessionId: string | null;
  record: string;
}

/** Denied and failed tool calls (and commands that exited non-zero) among the newest `window` events, newest first. */
export function needsAttention(db: Database.Database, opts: { sinceNs?: bigint; limit?: number; window?: number } = {}): { items: AttentionItem[]; counts: Record<string, number> } {
  const rows = db
    .prepare(
      `SELECT seq, tsNs, action, sessionId, record FROM (
         SELECT seq, ts_ns AS tsNs, action, session_id AS sessionId, record FROM events ${hint(db, 'events_ts')}
         ${opts.sinceNs !== undefined ? 'WHERE ts_ns >= ?' : ''} ORDER BY ts_ns DESC, seq DESC LIMIT ?)
       WHERE action IN ('approval.denied', 'tool.failed')
          OR (action = 'command.executed' AND coalesce(json_extract(record, '$.command.exit_code'), 0) <> 0)`,
    )
    .safeIntegers(true)
    .all(...(opts.sinceNs !== undefined ? [opts.sinceNs] : []), opts.window ?? RECENT_WINDOW) as AttentionItem[];
  const counts: Record<string, number> = {};
  for (const r of rows) {
    const k = r.action === 'command.executed' ? 'command.failed' : r.action;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return { items: rows.slice(0, opts.limit ?? 20), counts };
}

/** A log opened read-only keeps whatever indexes it has: use one only when it exists. */
function hint(db: Database.Database, name: string): string {
  let known = indexCache.get(db);
  if (!known) {
    known = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").pluck().all() as string[]));
    indexCache.set(db, known);
  }
  return known.has(name) ? `INDEXED BY ${name}` : '';
}
const indexCache = new WeakMap<Database.Database, Set<string>>();
