import type Database from 'better-sqlite3';
import { indexHint } from './indexes';
import { originReader } from './sessions';
import { queryUsage, type UsageFilter, type UsageRow } from './usage';

/** What `token-usage --by session` shows beside a session's tokens (ccusage's session report). */
export interface SessionFacts {
  firstNs: bigint;
  lastNs: bigint;
  harness: string | null;
  repository: string | null;
  branch: string | null;
}

/** Each session's first and last event (two seeks of the session index) and where it ran (one more). */
export function sessionFacts(db: Database.Database, ids: readonly string[]): Map<string, SessionFacts> {
  const idx = indexHint(db, 'events_session');
  const firstTs = db.prepare(`SELECT ts_ns FROM events ${idx} WHERE session_id = ? ORDER BY ts_ns LIMIT 1`).pluck().safeIntegers(true);
  const lastTs = db.prepare(`SELECT ts_ns FROM events ${idx} WHERE session_id = ? ORDER BY ts_ns DESC LIMIT 1`).pluck().safeIntegers(true);
  const origin = originReader(db);
  const out = new Map<string, SessionFacts>();
  for (const id of ids) out.set(id, { firstNs: firstTs.get(id) as bigint, lastNs: lastTs.get(id) as bigint, ...origin(id) });
  return out;
}

/**
 * Usage by repository: the usage of each session (the session rollup) under the repository its
 * session first recorded (the sessions page's repository), so a repository's tokens are its
 * sessions' tokens. Calls of no session, or of a session that recorded no repository, are `null`.
 * One origin lookup per session in the window.
 */
export function queryUsageByRepository(db: Database.Database, filter: UsageFilter): UsageRow[] {
  const rows = queryUsage(db, filter, 'session');
  const origin = originReader(db);
  const repository = new Map<string, string | null>();
  return rows.map((r) => {
    if (r.grp === null) return r;
    const id = String(r.grp);
    if (!repository.has(id)) repository.set(id, origin(id).repository);
    return { ...r, grp: repository.get(id)! };
  });
}
