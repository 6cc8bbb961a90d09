import type Database from 'better-sqlite3';
import { selectList, type Selected } from '../log/columns';
import { COMMAND_FAILED_SQL } from '../log/schema';
import { indexHint } from './indexes';
import { ACTIVITY_COLUMNS, TOOL_ACTION_SQL, callKey, joinToolCalls, parseRecord, type StoredActivity } from './tool-calls';

/** Small facts for the overview page and the pages' live updates, each a bounded read of the newest events. */

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
    .prepare(`SELECT method, max(ts_ns) AS ts FROM (SELECT method, ts_ns FROM events ${indexHint(db, 'events_ts')} ORDER BY ts_ns DESC LIMIT ?) GROUP BY method`)
    .safeIntegers(true)
    .all(window) as { method: string; ts: bigint }[];
  return Object.fromEntries(rows.map((r) => [r.method, r.ts]));
}

const ATTENTION_FIELDS = ['seq', 'tsNs', 'method', 'action', 'sessionId', 'harness', 'toolCallId', 'record'] as const;
export type AttentionItem = Selected<(typeof ATTENTION_FIELDS)[number]> & {
  /** a failed shell call: a command that failed (a non-zero exit, or the tool failing), as Sessions and the timeline count it */
  command: boolean;
};

/**
 * Denied and failed tool calls (and commands that exited non-zero) among the newest `window` events,
 * newest first: one per call, as the Sessions page and the timeline count them — a failure the
 * post-tool hook and the OTLP span both report is one call (issue 24 item 5), shown by its newest record.
 */
export function needsAttention(db: Database.Database, opts: { sinceNs?: bigint; limit?: number; window?: number } = {}): { items: AttentionItem[]; counts: Record<string, number> } {
  const rows = db
    .prepare(
      `SELECT seq, tsNs, method, action, sessionId, harness, toolCallId, record FROM (
         SELECT ${selectList(ATTENTION_FIELDS)} FROM events ${indexHint(db, 'events_ts')}
         ${opts.sinceNs !== undefined ? 'WHERE ts_ns >= ?' : ''} ORDER BY ts_ns DESC, seq DESC LIMIT ?)
       WHERE action IN ('approval.denied', 'tool.failed')
          OR ${COMMAND_FAILED_SQL}`,
    )
    .safeIntegers(true)
    .all(...(opts.sinceNs !== undefined ? [opts.sinceNs] : []), opts.window ?? RECENT_WINDOW) as AttentionItem[];
  // A call is its key (session, harness, call id); a path (method) reporting the key's failure a
  // second time is another call under a reused id, as the timeline pairs them.
  const shown = new Map<string, number>();
  const byPath = new Map<string, number>();
  const calls = rows.filter((r) => {
    const key = callKey(r);
    if (key === null) return true;
    const path = JSON.stringify([key, r.method]);
    const n = (byPath.get(path) ?? 0) + 1;
    byPath.set(path, n);
    if (n <= (shown.get(key) ?? 0)) return false;
    shown.set(key, n);
    return true;
  });
  markCommands(db, calls);
  const counts: Record<string, number> = {};
  for (const r of calls) {
    const k = r.command ? 'command.failed' : r.action;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return { items: calls.slice(0, opts.limit ?? 20), counts };
}

/**
 * Which failed calls are failed commands, by the timeline's rule (joinToolCalls: a failed shell call
 * is a failed command.executed): a command that exited non-zero; a tool.failed whose record holds
 * the command; or a tool.failed of a call another path classified as a command (the hook's
 * command.executed beside the span's tool.failed), read from the call's observations in its
 * session and joined as the timeline joins them (a reused call id stays two calls).
 */
function markCommands(db: Database.Database, calls: AttentionItem[]): void {
  const ask = new Map<string, AttentionItem[]>();
  for (const r of calls) {
    r.command = r.action === 'command.executed' || (r.action === 'tool.failed' && parseRecord(r.record).command !== undefined);
    if (r.command || r.action !== 'tool.failed' || r.toolCallId === null || r.sessionId === null) continue;
    ask.set(r.sessionId, [...(ask.get(r.sessionId) ?? []), r]);
  }
  if (ask.size === 0) return;
  const observations = db.prepare(
    `SELECT ${ACTIVITY_COLUMNS} FROM events ${indexHint(db, 'events_session')} WHERE session_id = ? AND tool_call_id IN (SELECT value FROM json_each(?)) AND ${TOOL_ACTION_SQL} ORDER BY ts_ns, seq`,
  ).safeIntegers(true);
  for (const [session, rows] of ask) {
    const actionOf = new Map<bigint, string | null>();
    for (const it of joinToolCalls(observations.all(session, JSON.stringify([...new Set(rows.map((r) => r.toolCallId))])) as StoredActivity[])) {
      if (it.kind === 'tool_call') for (const o of it.observations) actionOf.set(o.event.seq, it.action);
    }
    for (const r of rows) r.command = actionOf.get(r.seq) === 'command.executed';
  }
}
