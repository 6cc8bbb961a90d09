import type Database from 'better-sqlite3';
import { forwardFloor } from './forward-cursors';

export interface RetentionPolicy {
  /** delete events older than this many days (0: no age limit) */
  maxAgeDays: number;
  /** delete the oldest events while the log's data exceeds this many bytes (0: no size limit) */
  maxBytes: number;
}

export interface PruneResult {
  deletedByAge: number;
  deletedBySize: number;
  bytesBefore: number;
  bytesAfter: number;
  /** per forward destination: events deleted for size that it had not yet acknowledged (lost to it) */
  unforwardedDeleted: Record<string, number>;
  /** events past the age limit kept because a forward destination has not acknowledged them yet */
  heldForForwarding: number;
}

const BATCH = 5000;

/**
 * Enforces the policy in small transactions (a few ms each), so writers — the collector, hooks —
 * interleave with it instead of waiting for one long delete. Freed pages go back to the file system
 * (incremental auto-vacuum).
 */
export function prune(db: Database.Database, policy: RetentionPolicy, nowNs: bigint): PruneResult {
  const bytes = () => {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const pages = db.pragma('page_count', { simple: true }) as number;
    const free = db.pragma('freelist_count', { simple: true }) as number;
    return (pages - free) * pageSize;
  };
  const result: PruneResult = { deletedByAge: 0, deletedBySize: 0, bytesBefore: bytes(), bytesAfter: 0, unforwardedDeleted: {}, heldForForwarding: 0 };
  // Age retention waits for forwarding (events not yet acknowledged by every destination stay);
  // the size limit does not: it bounds the disk, and what it takes unsent is counted and reported.
  const floor = forwardFloor(db);
  const held = floor ?? (1n << 62n);
  if (policy.maxAgeDays > 0) {
    const cutoff = nowNs - BigInt(Math.round(policy.maxAgeDays * 86400)) * 1_000_000_000n;
    const del = db.prepare('DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE ts_ns < ? AND seq <= ? ORDER BY ts_ns LIMIT ?)');
    for (;;) {
      const n = db.transaction(() => del.run(cutoff, held, BATCH).changes).immediate();
      result.deletedByAge += n;
      if (n < BATCH) break;
    }
    if (floor !== undefined) result.heldForForwarding = (db.prepare('SELECT count(*) AS n FROM events WHERE ts_ns < ? AND seq > ?').get(cutoff, floor) as { n: number }).n;
  }
  if (policy.maxBytes > 0 && bytes() > policy.maxBytes) {
    // Down to 90% of the limit, so a log at its limit is not pruned again at every run.
    const target = policy.maxBytes * 0.9;
    const del = db.prepare('DELETE FROM events WHERE seq IN (SELECT seq FROM events ORDER BY ts_ns LIMIT ?)');
    const countUnforwarded = floor === undefined ? undefined : db.prepare(
      'SELECT c.name, (SELECT count(*) FROM (SELECT seq FROM events ORDER BY ts_ns LIMIT ?) AS d WHERE d.seq > c.seq) AS n FROM forward_cursors c',
    );
    let remaining = (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    for (let used = bytes(); used > target && remaining > 0; used = bytes()) {
      // Rows in proportion to the excess (rows are of similar size), at most one batch at a time.
      const want = Math.min(BATCH, Math.max(50, Math.ceil((remaining * (used - target)) / used)));
      const n = db.transaction(() => {
        if (countUnforwarded) {
          for (const c of countUnforwarded.all(want) as { name: string; n: number }[]) {
            if (c.n > 0) result.unforwardedDeleted[c.name] = (result.unforwardedDeleted[c.name] ?? 0) + c.n;
          }
        }
        return del.run(want).changes;
      }).immediate();
      result.deletedBySize += n;
      remaining -= n;
      if (n === 0) break;
    }
  }
  if (result.deletedByAge + result.deletedBySize > 0) db.pragma('incremental_vacuum');
  result.bytesAfter = bytes();
  return result;
}
