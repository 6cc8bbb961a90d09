import type Database from 'better-sqlite3';
import { hasIndex } from './indexes';
import { QUARTER_HOUR_NS, type UsageFilter, type UsageGrouping, type UsageRow } from './usage';
import { addUsage, copyAbove, USAGE_SUMS_SQL, usageRowOf } from './usage-sums';

/** Cells are quarter hours (as queryUsage's calendar groups are): every UTC offset in use is a multiple of one. */
const HOUR_NS = QUARTER_HOUR_NS;

interface Cell extends UsageRow {
  hour: number;
  session: string | null;
  harness: string;
}

/**
 * Model-call usage per (quarter hour, session, harness, model, provider), kept in memory and brought up to date
 * from the rows committed since the last read (a rowid range), so a dashboard page sums a few
 * thousand cells instead of reading the usage index of a million events on every request. The
 * first read builds it from the usage index; retention (the oldest sequence moving) rebuilds it.
 * Time windows therefore resolve to quarter hours: one is in a window when any of it is.
 */
export class UsageRollup {
  private cells = new Map<string, Cell>();
  private lastSeq = -1n;
  private firstSeq = -1n;

  constructor(private readonly db: Database.Database) {}

  refresh(): void {
    const read = this.db.transaction(() => {
      // Two statements: SQLite answers a lone min() or max() from the b-tree's edge, both together by a scan.
      const edge = (f: 'min' | 'max') => (this.db.prepare(`SELECT coalesce(${f}(seq), 0) FROM events`).pluck().safeIntegers(true).get() as bigint);
      const bounds = { lo: edge('min'), hi: edge('max') };
      // Retention removed the oldest events: what they added cannot be taken out, so build again.
      if (this.firstSeq > 0n && bounds.lo !== this.firstSeq) this.lastSeq = -1n;
      this.firstSeq = bounds.lo;
      if (bounds.hi === this.lastSeq) return;
      const fresh = this.lastSeq < 0n;
      if (fresh) this.cells.clear();
      const sql = fresh
        ? `SELECT ts_ns / ${HOUR_NS} AS hour, session_id AS session, harness, model, provider, ${USAGE_SUMS_SQL} FROM events ${hasIndex(this.db, 'events_usage') ? 'INDEXED BY events_usage' : ''}
           WHERE action = 'model.invoked' AND seq <= ? GROUP BY hour, session, harness, model, provider`
        : `SELECT ts_ns / ${HOUR_NS} AS hour, session_id AS session, harness, model, provider, ${USAGE_SUMS_SQL} FROM events
           WHERE seq > ? AND seq <= ? AND action = 'model.invoked' GROUP BY hour, session, harness, model, provider`;
      const flat = (fresh ? this.db.prepare(sql).all(bounds.hi) : this.db.prepare(sql).all(this.lastSeq, bounds.hi)) as Record<string, unknown>[];
      for (const f of flat) this.merge(usageRowOf({ ...f, grp: null }) as unknown as Cell);
      this.lastSeq = bounds.hi;
    });
    read();
  }

  private merge(r: Cell): void {
    const key = `${r.hour}\u0000${r.session}\u0000${r.harness}\u0000${r.model}\u0000${r.provider}`;
    const c = this.cells.get(key);
    if (!c) this.cells.set(key, r);
    else addUsage(c, r);
  }

  /** The same rows `queryUsage` returns (one per group, model, provider), from memory. */
  query(filter: UsageFilter, by: UsageGrouping): UsageRow[] {
    this.refresh();
    const sinceHour = filter.sinceNs === undefined ? undefined : Number(filter.sinceNs / HOUR_NS);
    const untilHour = filter.untilNs === undefined ? undefined : Number((filter.untilNs + HOUR_NS - 1n) / HOUR_NS);
    const out = new Map<string, UsageRow>();
    for (const c of this.cells.values()) {
      if (sinceHour !== undefined && c.hour < sinceHour) continue;
      if (untilHour !== undefined && c.hour >= untilHour) continue;
      if (filter.sessionId !== undefined && c.session !== filter.sessionId) continue;
      if (filter.harness !== undefined && c.harness !== filter.harness) continue;
      if (filter.model !== undefined && !(c.model !== null && c.model.startsWith(filter.model))) continue;
      const grp = by === 'session' ? c.session : by === 'model' ? c.model : by === 'provider' ? c.provider : by === 'harness' ? c.harness : c.hour;
      const key = `${grp}\u0000${c.model}\u0000${c.provider}`;
      const g = out.get(key);
      if (!g) {
        const { hour: _h, session: _s, harness: _n, ...row } = c;
        out.set(key, { ...row, grp, above: copyAbove(c.above) });
        continue;
      }
      addUsage(g, c);
    }
    return [...out.values()];
  }
}
