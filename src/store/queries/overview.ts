import type Database from 'better-sqlite3';
import { selectList, type Selected } from '../log/columns';
import { COMMAND_FAILED_SQL } from '../log/schema';
import { indexHint } from './indexes';
import { callKey } from './tool-calls';

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
export type AttentionItem = Selected<(typeof ATTENTION_FIELDS)[number]>;

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
  const counts: Record<string, number> = {};
  for (const r of calls) {
    const k = r.action === 'command.executed' ? 'command.failed' : r.action;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return { items: calls.slice(0, opts.limit ?? 20), counts };
}
