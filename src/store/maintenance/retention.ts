import type Database from 'better-sqlite3';
import { forwardFloor } from './forward-cursors';

export interface RetentionPolicy {
  /** delete events received longer ago than this many days (0: no age limit) */
  maxAgeDays: number;
  /** delete the oldest events while the log's data exceeds this many bytes (0: no size limit) */
  maxBytes: number;
}

export interface PruneResult {
  deletedByAge: number;
  deletedBySize: number;
  bytesBefore: number;
  bytesAfter: number;
  /** pages given back to the file system */
  pagesVacuumed: number;
  /** write transactions the pass took */
  steps: number;
  /** the longest of them (ms): how long any other writer — a hook — waited on retention at most */
  longestStepMs: number;
  /** the longest delete step and the longest vacuum step (ms) */
  longestDeleteMs: number;
  longestVacuumMs: number;
  /** per forward destination: events deleted for size that it had not yet acknowledged (lost to it) */
  unforwardedDeleted: Record<string, number>;
  /** events past the age limit kept because a forward destination has not acknowledged them yet */
  heldForForwarding: number;
}

/**
 * Each step is one write transaction; its size is adapted so that it holds the write lock about
 * this long. Hooks wait 3 s and the collector `busy_timeout` for the lock: a step well under 100 ms
 * lets them interleave with a pass over a log of any size.
 */
const STEP_TARGET_MS = 20;
const MIN_ROWS = 50;
const MAX_ROWS = 20_000;
const MIN_PAGES = 64;
const MAX_PAGES = 65_536;

/**
 * SQLite's lock is not fair: a waiter polls on its busy handler's schedule (1, 2, 5 … 25 ms apart
 * at first), and a pass whose steps ran back to back would take the lock again before the waiter
 * looked — a hook beside a pass waited 680 ms behind 20 ms steps. So after each step the pass
 * leaves the lock free at least this long (or as long as the step took).
 */
const GAP_MS = 30;
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** A batch size steered towards STEP_TARGET_MS from the last step's rate. */
class Stepper {
  constructor(
    public size: number,
    private readonly min: number,
    private readonly max: number,
  ) {}

  next(done: number, ms: number): void {
    if (done <= 0) return;
    const perMs = done / Math.max(ms, 0.5);
    // Grow at most 2× a step, shrink at once: a slow step is corrected by the very next one.
    this.size = Math.round(Math.min(this.max, this.size * 2, Math.max(this.min, perMs * STEP_TARGET_MS)));
  }
}

/** One pass's state: its result so far, its lock-holding step, and the delete batch size it steers. */
interface Pass {
  db: Database.Database;
  result: PruneResult;
  step: (kind: 'longestDeleteMs' | 'longestVacuumMs', fn: () => number) => { n: number; ms: number };
  rows: Stepper;
  /** the lowest forward cursor (undefined: nothing is forwarded) */
  floor: bigint | undefined;
  /** the bytes the log's data takes now */
  bytes: () => number;
}

/**
 * Enforces the policy in short write transactions (each ≈ STEP_TARGET_MS), so writers — the
 * collector, hooks — interleave with it instead of waiting for one long delete or vacuum. Age is
 * judged by when Beacon stored an event (`received_ns`), never by the event's own clock, so a
 * skewed or zero timestamp is kept as long as any other event; rows stored before schema v3 carry
 * no receive time and are judged by event time. Freed pages go back to the file system
 * (incremental auto-vacuum), also in bounded steps.
 */
export function prune(db: Database.Database, policy: RetentionPolicy, nowNs: bigint): PruneResult {
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const bytes = () => {
    const pages = db.pragma('page_count', { simple: true }) as number;
    const free = db.pragma('freelist_count', { simple: true }) as number;
    return (pages - free) * pageSize;
  };
  const result: PruneResult = { deletedByAge: 0, deletedBySize: 0, bytesBefore: bytes(), bytesAfter: 0, pagesVacuumed: 0, steps: 0, longestStepMs: 0, longestDeleteMs: 0, longestVacuumMs: 0, unforwardedDeleted: {}, heldForForwarding: 0 };
  // Timed from the moment the lock is held (BEGIN IMMEDIATE waits for other writers) to the commit.
  const step: Pass['step'] = (kind, fn) => {
    db.exec('BEGIN IMMEDIATE');
    const t0 = performance.now();
    let n: number;
    try {
      n = fn();
      db.exec('COMMIT');
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw e;
    }
    const ms = performance.now() - t0;
    pause(Math.max(GAP_MS, ms));
    result.steps++;
    result.longestStepMs = Math.max(result.longestStepMs, ms);
    result[kind] = Math.max(result[kind], ms);
    return { n, ms };
  };
  // Age retention waits for forwarding (events not yet acknowledged by every destination stay);
  // the size limit does not: it bounds the disk, and what it takes unsent is counted and reported.
  const pass: Pass = { db, result, step, rows: new Stepper(200, MIN_ROWS, MAX_ROWS), floor: forwardFloor(db), bytes };
  if (policy.maxAgeDays > 0) pruneByAge(pass, nowNs - BigInt(Math.round(policy.maxAgeDays * 86400)) * 1_000_000_000n);
  if (policy.maxBytes > 0 && bytes() > policy.maxBytes) pruneBySize(pass, policy.maxBytes);
  vacuumFreePages(pass);
  result.bytesAfter = bytes();
  return result;
}

/** Deletes the events received before `cutoff` (by event time for rows from before v3) that every destination has acknowledged. */
function pruneByAge({ db, result, step, rows, floor }: Pass, cutoff: bigint): void {
  const held = floor ?? (1n << 62n);
  const deletes = [
    db.prepare('DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE received_ns < ? AND seq <= ? ORDER BY received_ns LIMIT ?)'),
    db.prepare('DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE received_ns IS NULL AND ts_ns < ? AND seq <= ? ORDER BY ts_ns LIMIT ?)'),
  ];
  for (const del of deletes) {
    for (;;) {
      const want = rows.size;
      const { n, ms } = step('longestDeleteMs', () => del.run(cutoff, held, want).changes);
      result.deletedByAge += n;
      rows.next(n, ms);
      if (n < want) break;
    }
  }
  if (floor !== undefined) {
    result.heldForForwarding = (db.prepare('SELECT count(*) AS n FROM events WHERE seq > ? AND (received_ns < ? OR (received_ns IS NULL AND ts_ns < ?))').get(floor, cutoff, cutoff) as { n: number }).n;
  }
}

/**
 * Deletes the oldest stored events (commit order, the primary key) down to 90% of `maxBytes`, so a
 * log at its limit is not pruned again at every run; counts what each destination had not yet acknowledged.
 */
function pruneBySize({ db, result, step, rows, floor, bytes }: Pass, maxBytes: number): void {
  const target = maxBytes * 0.9;
  const del = db.prepare('DELETE FROM events WHERE seq IN (SELECT seq FROM events ORDER BY seq LIMIT ?)');
  const countUnforwarded = floor === undefined ? undefined : db.prepare(
    'SELECT c.name, (SELECT count(*) FROM (SELECT seq FROM events ORDER BY seq LIMIT ?) AS d WHERE d.seq > c.seq) AS n FROM forward_cursors c',
  );
  let remaining = (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
  for (let used = bytes(); used > target && remaining > 0; used = bytes()) {
    // Rows in proportion to the excess (rows are of similar size), at most one step at a time.
    const want = Math.min(rows.size, Math.max(MIN_ROWS, Math.ceil((remaining * (used - target)) / used)));
    const { n, ms } = step('longestDeleteMs', () => {
      for (const c of (countUnforwarded?.all(want) ?? []) as { name: string; n: number }[]) {
        if (c.n > 0) result.unforwardedDeleted[c.name] = (result.unforwardedDeleted[c.name] ?? 0) + c.n;
      }
      return del.run(want).changes;
    });
    result.deletedBySize += n;
    remaining -= n;
    rows.next(n, ms);
    if (n === 0) break;
  }
}

/** Gives free pages back to the file system in bounded steps: incremental_vacuum with no count frees every page in one statement (5.8 s on a 600 MB log). */
function vacuumFreePages({ db, result, step }: Pass): void {
  const pages = new Stepper(256, MIN_PAGES, MAX_PAGES);
  // Logs created before incremental auto-vacuum (mode 2) reuse their free pages instead.
  const incremental = (db.pragma('auto_vacuum', { simple: true }) as number) === 2;
  for (;;) {
    const free = incremental ? (db.pragma('freelist_count', { simple: true }) as number) : 0;
    if (free === 0) break;
    const want = Math.min(free, pages.size);
    const { ms } = step('longestVacuumMs', () => {
      db.pragma(`incremental_vacuum(${want})`);
      return want;
    });
    result.pagesVacuumed += want;
    pages.next(want, ms);
  }
}
