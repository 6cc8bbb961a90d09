import type Database from 'better-sqlite3';
import { isTestSession } from '../../model/send-test';
import { hasIndex, indexHint } from './indexes';
import { COMMAND_FAILED_SQL, FAILED_SHELL_SQL, NAMES_REPOSITORY_SQL } from '../log/schema';
import { ACTIVITY_COLUMNS, joinToolCalls, TOOL_ACTION_SQL, type StoredActivity, type TimelineItem } from './tool-calls';
import { queryUsage, type UsageRow } from './usage';
import { totalTokens } from './usage-sums';

/**
 * Sessions read for people (the dashboard's sessions page, \`beacon sessions\`). Every query is
 * bounded on the one-million-event log: it reads an index range (a session) or the usage rollup's
 * cells, never a full scan of the log.
 */

export interface SessionFilter {
  sinceNs?: bigint;
  untilNs?: bigint;
  /** exact repository (working directory) as recorded */
  repository?: string;
  /** the agent (harness name) the session ran in */
  harness?: string;
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
  /** of failedCalls, the commands (kind command.executed: a non-zero exit, or a shell call an agent reported as tool.failed) */
  failedCommands: number;
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
 * alone, tokens from the usage rollup; the repository is one indexed lookup per session; the costly
 * part (tool calls by kind, failures) is computed for the returned page only.
 */
export function listSessions(
  db: Database.Database,
  filter: SessionFilter,
  opts: { sort?: SessionSort; desc?: boolean; limit?: number; offset?: number; detailCache?: SessionDetailCache } = {},
): SessionPage {
  // Distinct sessions by skip-scan of the session index (one seek per session), each one's first
  // and last event by two more seeks: a few thousand index reads, never the index's million entries.
  const idx = indexHint(db, 'events_session');
  const nextId = db.prepare(`SELECT session_id FROM events ${idx} WHERE session_id > ? ORDER BY session_id LIMIT 1`).pluck();
  const firstTs = db.prepare(`SELECT ts_ns FROM events ${idx} WHERE session_id = ? ORDER BY ts_ns LIMIT 1`).pluck().safeIntegers(true);
  const lastTs = db.prepare(`SELECT ts_ns FROM events ${idx} WHERE session_id = ? ORDER BY ts_ns DESC LIMIT 1`).pluck().safeIntegers(true);
  const countOf = db.prepare(`SELECT count(*) FROM events ${idx} WHERE session_id = ?`).pluck();
  const bounds: { id: string; firstNs: bigint; lastNs: bigint }[] = [];
  for (let id = db.prepare(`SELECT min(session_id) FROM events ${idx}`).pluck().get() as string | null; id !== null && id !== undefined; id = nextId.get(id) as string | undefined ?? null) {
    if (isTestSession(id)) continue; // beacon doctor --send-test's: in beacon events only
    const lastNs = lastTs.get(id) as bigint;
    if (filter.sinceNs !== undefined && lastNs < filter.sinceNs) continue;
    const firstNs = firstTs.get(id) as bigint;
    if (filter.untilNs !== undefined && firstNs >= filter.untilNs) continue;
    bounds.push({ id, firstNs, lastNs });
  }

  const usage = new Map<string, UsageRow[]>();
  for (const r of queryUsage(db, { sinceNs: filter.sinceNs, untilNs: filter.untilNs, model: filter.model }, 'session')) {
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
      modelCalls: u.reduce((a, r) => a + r.calls, 0), tokens: u.reduce((a, r) => a + totalTokens(r), 0),
      repository: null, branch: null, harness: null,
    };
    sessions.push(s);
  }
  // The origin (repository, agent) of every candidate only when filtering on it; otherwise for the page alone.
  const originOf = originReader(db);
  const fillOrigin = (s: SessionSummary) => Object.assign(s, originOf(s.id));
  const byOrigin = filter.repository !== undefined || filter.harness !== undefined;
  if (byOrigin) {
    sessions.forEach(fillOrigin);
    sessions = sessions.filter((s) => (filter.repository === undefined || s.repository === filter.repository) && (filter.harness === undefined || s.harness === filter.harness));
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
  let readDetail: ((sessionId: string) => SessionDetail) | undefined;
  for (const s of page) {
    if (!byOrigin) fillOrigin(s);
    // A session's detail changes only with new events, which move its last event time.
    const cached = opts.detailCache?.get(s.id);
    s.detail = cached && cached.lastNs === s.lastNs ? cached.detail : (readDetail ??= detailReader(db))(s.id);
    if (opts.detailCache && cached?.detail !== s.detail) {
      if (opts.detailCache.size >= 10_000) opts.detailCache.clear();
      opts.detailCache.set(s.id, { lastNs: s.lastNs, detail: s.detail });
    }
    s.events = s.detail.events;
  }
  return { total: sessions.length, sessions: page };
}

export interface SessionOrigin {
  repository: string | null;
  branch: string | null;
  harness: string | null;
}

/** Where a session ran: the first recorded repository (working directory) and branch, and its harness. One indexed read. */
export function sessionOrigin(db: Database.Database, sessionId: string): SessionOrigin {
  return originReader(db)(sessionId);
}

/**
 * `sessionOrigin` for many sessions, its statements prepared once (a page of sessions, a repository filter over all of them).
 * The events that name a repository are an index of their own (schema v8, `events_origin`): one seek,
 * and none for a session that never names one (goose's OTLP spans). A log without it (read-only, left
 * by an older Beacon) reads such a session to its end, `instr` passing over the records without the key.
 */
export function originReader(db: Database.Database): (sessionId: string) => SessionOrigin {
  const idx = indexHint(db, 'events_session');
  const named = hasIndex(db, 'events_origin') ? 'INDEXED BY events_origin' : idx;
  const first = db.prepare(
    `SELECT json_extract(record, '$.repository') AS repository, json_extract(record, '$.branch') AS branch, harness
     FROM events ${named} WHERE session_id = ? AND ${NAMES_REPOSITORY_SQL} ORDER BY ts_ns LIMIT 1`,
  );
  const anyHarness = db.prepare(`SELECT harness FROM events ${idx} WHERE session_id = ? LIMIT 1`).pluck();
  return (sessionId) => {
    const o = first.get(sessionId) as { repository: unknown; branch: unknown; harness: string } | undefined;
    const harness = o?.harness ?? (anyHarness.get(sessionId) as string | undefined) ?? null;
    return { repository: typeof o?.repository === 'string' ? o.repository : null, branch: typeof o?.branch === 'string' ? o.branch : null, harness };
  };
}

/**
 * What a session did, summed by SQLite from the session index alone (schema v5: it covers action,
 * method, tool call id and whether a command failed), so a page of 50 sessions returns a few rows
 * each, not their 25k events, and reads no record. A log without the wider index (read-only, left
 * by an older Beacon) answers the same from the records, slower.
 *
 * Observations of one tool call (one call id; an observation without one is a call of its own) are
 * one call: denied when the policy denied it (then of kind `denied` and never failed, whatever the
 * agent's own record of it says: the call never ran, tool-calls.ts asDenied), else failed when any
 * says so (tool.failed, a command's non-zero exit), and of the kind its latest classified observation
 * names (tool.invoked, tool.failed and approval.denied name none; ties in time go to the later action
 * name, as the index orders them).
 * An id some path reported more than once was reused (a provider numbering its calls call_1… anew in
 * every turn, or two harnesses in one session): its observations are read and paired into calls as
 * the timeline pairs them (`joinToolCalls`), so the counts are the timeline's.
 *
 * Its statements are prepared once per page (a page of 50 sessions prepared them 100 times:
 * ~4 ms of `beacon sessions`).
 */
function detailReader(db: Database.Database): (sessionId: string) => SessionDetail {
  const idx = indexHint(db, 'events_session');
  const totals = db.prepare(`SELECT count(*) AS events, coalesce(sum(action = 'prompt.submitted'), 0) AS prompts, json_group_array(DISTINCT method) AS methods FROM events ${idx} WHERE session_id = ?`);
  // One scan: each call id's group says whether a path reported it twice (`reused`); those groups'
  // ids come back in a list, to be paired from their observations, and are not summed here.
  const kinds = db.prepare(
    `SELECT CASE WHEN denied THEN 'denied' ELSE coalesce(kind, 'tool') END AS kind, reused, count(*) AS calls, sum(failed AND NOT denied) AS failed, sum(denied) AS denied,
       CASE WHEN reused THEN json_group_array(tool_call_id) END AS ids FROM (
       SELECT tool_call_id, substr(max(CASE WHEN action NOT IN ('tool.invoked', 'tool.failed', 'approval.denied') THEN printf('%020d', ts_ns) || action
         WHEN action = 'tool.failed' AND seq IN (SELECT value FROM json_each(?)) THEN printf('%020d', ts_ns) || 'command.executed' END), 21) AS kind,
         max(action = 'tool.failed' OR ${COMMAND_FAILED_SQL}) AS failed,
         max(action = 'approval.denied') AS denied,
         tool_call_id IS NOT NULL AND count(*) > ${PATHS_SQL} AS reused
       FROM events ${idx} WHERE session_id = ? AND ${TOOL_ACTION_SQL}
       GROUP BY tool_call_id, CASE WHEN tool_call_id IS NULL THEN seq END)
     GROUP BY 1, 2`,
  );
  // A failed shell call is stored as tool.failed with its command (every source classifies it first):
  // it is a failed command. They are an index of their own (v8, `events_failed_shell`); without it the
  // session's tool.failed rows are read for their record.
  const shellIdx = hasIndex(db, 'events_failed_shell') ? 'INDEXED BY events_failed_shell' : idx;
  const failedShells = db.prepare(`SELECT seq FROM events ${shellIdx} WHERE session_id = ? AND ${FAILED_SHELL_SQL}`).pluck();
  const observations = db.prepare(
    `SELECT ${ACTIVITY_COLUMNS} FROM events ${idx} WHERE session_id = ? AND tool_call_id IN (SELECT value FROM json_each(?)) AND ${TOOL_ACTION_SQL} ORDER BY ts_ns, seq`,
  ).safeIntegers(true);
  return (sessionId) => {
    const groups = kinds.all(JSON.stringify(failedShells.all(sessionId)), sessionId) as (DetailKind & { reused: number; ids: string | null })[];
    const detail = sessionDetail(totals.get(sessionId) as DetailTotals, groups.filter((g) => !g.reused));
    const ids = groups.flatMap((g) => (g.reused && g.ids ? (JSON.parse(g.ids) as string[]) : []));
    if (ids.length > 0) addCalls(detail, joinToolCalls(observations.all(sessionId, JSON.stringify(ids)) as StoredActivity[]));
    return detail;
  };
}

/**
 * How many paths reported a call id's observations, in SQL (`joinToolCalls`' pathOf before it reads
 * a second hook `tool.invoked` as the post-tool one), as a sum of one flag per path (methods are
 * otlp, hook, stream and poll) rather than a DISTINCT count, which sorts every group: an id with more
 * observations than paths names more than one call.
 */
const PATHS_SQL = `(${[
  "action = 'approval.denied' AND method = 'hook'", "action = 'approval.denied' AND method = 'otlp'", "action = 'approval.denied' AND method = 'stream'",
  "action <> 'approval.denied' AND method = 'hook' AND action = 'tool.invoked'", "action <> 'approval.denied' AND method = 'hook' AND action <> 'tool.invoked'",
  "action <> 'approval.denied' AND method = 'otlp'", "action <> 'approval.denied' AND method = 'stream'", "action <> 'approval.denied' AND method = 'poll'",
].map((p) => `max(${p})`).join(' + ')})`;

function addCalls(detail: SessionDetail, items: TimelineItem[]): void {
  for (const it of items) {
    if (it.kind !== 'tool_call') continue;
    const kind = it.denied ? 'denied' : it.action ?? 'tool';
    detail.toolCalls[kind] = (detail.toolCalls[kind] ?? 0) + 1;
    if (it.failed) detail.failedCalls += 1;
    if (it.failed && kind === 'command.executed') detail.failedCommands += 1;
    if (it.denied) detail.deniedCalls += 1;
  }
}

interface DetailTotals {
  events: number;
  prompts: number;
  methods: string;
}

interface DetailKind {
  kind: string;
  calls: number;
  failed: number;
  denied: number;
}

function sessionDetail(totals: DetailTotals, kinds: DetailKind[]): SessionDetail {
  const detail: SessionDetail = { toolCalls: {}, failedCalls: 0, failedCommands: 0, deniedCalls: 0, prompts: totals.prompts, methods: (JSON.parse(totals.methods) as string[]).sort(), events: totals.events };
  for (const k of kinds) {
    detail.toolCalls[k.kind] = k.calls;
    detail.failedCalls += k.failed;
    if (k.kind === 'command.executed') detail.failedCommands += k.failed;
    detail.deniedCalls += k.denied;
  }
  return detail;
}
