import type Database from 'better-sqlite3';
import { asStoreError } from '../log/event-log';

/**
 * The forward destinations' cursors (schema v4, table `forward_cursors`): per destination name, the
 * last commit `seq` its receiver acknowledged. They live in the event log itself, so a cursor and
 * the events it points into can never disagree, and retention can see them.
 */
export class ForwardCursors {
  private readonly get: Database.Statement;
  private readonly put: Database.Statement;

  constructor(private readonly db: Database.Database, private readonly path: string) {
    this.get = db.prepare('SELECT seq FROM forward_cursors WHERE name = ?').safeIntegers(true);
    this.put = db.prepare(
      `INSERT INTO forward_cursors (name, seq, updated_ns) VALUES (?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET seq = excluded.seq, updated_ns = excluded.updated_ns`,
    );
  }

  /**
   * The cursors of exactly these destinations: an existing one resumes where it stopped, a new one
   * starts at the log's end (or before its first event with `from: "start"`). Cursors of
   * destinations no longer configured are removed, so they stop holding retention back.
   */
  open(destinations: readonly { name: string; from: 'start' | 'end' }[]): Map<string, bigint> {
    try {
      return this.db.transaction(() => {
        const names = destinations.map((d) => d.name);
        const stale = (this.db.prepare('SELECT name FROM forward_cursors').all() as { name: string }[]).filter((r) => !names.includes(r.name));
        for (const r of stale) this.db.prepare('DELETE FROM forward_cursors WHERE name = ?').run(r.name);
        const end = (this.db.prepare('SELECT coalesce(max(seq), 0) AS m FROM events').safeIntegers(true).get() as { m: bigint }).m;
        const out = new Map<string, bigint>();
        for (const d of destinations) {
          const row = this.get.get(d.name) as { seq: bigint } | undefined;
          if (row) out.set(d.name, row.seq);
          else {
            const seq = d.from === 'start' ? 0n : end;
            this.put.run(d.name, seq, nowNs());
            out.set(d.name, seq);
          }
        }
        return out;
      }).immediate();
    } catch (e) {
      throw asStoreError(e, this.path);
    }
  }

  /** Records that the destination's receiver acknowledged every event up to `seq`. */
  advance(name: string, seq: bigint): void {
    try {
      this.put.run(name, seq, nowNs());
    } catch (e) {
      throw asStoreError(e, this.path);
    }
  }
}

/** Events after `seq` (not yet acknowledged) and the event time of the first of them. */
export function lagAfter(db: Database.Database, seq: bigint): { records: number; oldestNs: bigint | null } {
  const n = db.prepare('SELECT count(*) AS n FROM events WHERE seq > ?').get(seq) as { n: number };
  if (n.n === 0) return { records: 0, oldestNs: null };
  const first = db.prepare('SELECT ts_ns AS ts FROM events WHERE seq > ? ORDER BY seq LIMIT 1').safeIntegers(true).get(seq) as { ts: bigint } | undefined;
  return { records: n.n, oldestNs: first?.ts ?? null };
}

/**
 * The lowest cursor of any destination: events after it are not yet acknowledged everywhere. Age
 * retention waits for them; undefined when nothing is forwarded (or the log predates v4).
 */
export function forwardFloor(db: Database.Database): bigint | undefined {
  try {
    const r = db.prepare('SELECT min(seq) AS m FROM forward_cursors').safeIntegers(true).get() as { m: bigint | null };
    return r.m ?? undefined;
  } catch {
    return undefined; // a read-only connection to a log without the table
  }
}

const nowNs = () => BigInt(Date.now()) * 1_000_000n;
