import type Database from 'better-sqlite3';
import { LONG_CONTEXT_THRESHOLDS } from '../../model/usage';
import type { TokenBuckets, UsageFilter, UsageGrouping, UsageRow } from './usage';

import { QUARTER_HOUR_NS } from './usage';

/** Cells are quarter hours (as queryUsage's calendar groups are): every UTC offset in use is a multiple of one. */
const HOUR_NS = QUARTER_HOUR_NS;
const PROMPT = '(coalesce(input_tokens, 0) + coalesce(cache_read_tokens, 0) + coalesce(cache_creation_tokens, 0))';
const above = (t: number, col: string) => `coalesce(sum(CASE WHEN ${PROMPT} > ${t} THEN ${col} END), 0)`;
const BUCKETS = [['input', 'input_tokens'], ['output', 'output_tokens'], ['cacheRead', 'cache_read_tokens'], ['cacheWrite', 'cache_creation_tokens']] as const;
const SUMS = `count(*) AS calls,
  coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output,
  coalesce(sum(cache_read_tokens), 0) AS cacheRead, coalesce(sum(cache_creation_tokens), 0) AS cacheWrite,
  coalesce(sum(reasoning_tokens), 0) AS reasoning, sum(cost_usd) AS reportedCost, count(cost_usd) AS reportedCalls,
  ${LONG_CONTEXT_THRESHOLDS.map((t) => BUCKETS.map(([key, col]) => `${above(t, col)} AS ${key}_${t}`).join(', ')).join(',\n  ')}`;

interface Cell extends UsageRow {
  hour: number;
  session: string | null;
}

const NUMERIC = ['calls', 'input', 'output', 'cacheRead', 'cacheWrite', 'reasoning', 'reportedCalls'] as const;

/** Adds `from` into `to`: every sum, the reported cost, and each long-context part. */
function addInto(to: UsageRow, from: UsageRow): void {
  for (const k of NUMERIC) to[k] += from[k];
  if (from.reportedCost !== null) to.reportedCost = (to.reportedCost ?? 0) + from.reportedCost;
  for (const t of LONG_CONTEXT_THRESHOLDS) for (const [key] of BUCKETS) to.above[t]![key] += from.above[t]![key];
}

function copyAbove(a: Record<number, TokenBuckets>): Record<number, TokenBuckets> {
  return Object.fromEntries(LONG_CONTEXT_THRESHOLDS.map((t) => [t, { ...a[t]! }]));
}

/**
 * Model-call usage per (quarter hour, session, model, provider), kept in memory and brought up to date
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
      const hasIndex = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'events_usage'").get() !== undefined;
      const sql = fresh
        ? `SELECT ts_ns / ${HOUR_NS} AS hour, session_id AS session, model, provider, ${SUMS} FROM events ${hasIndex ? 'INDEXED BY events_usage' : ''}
           WHERE action = 'model.invoked' AND seq <= ? GROUP BY hour, session, model, provider`
        : `SELECT ts_ns / ${HOUR_NS} AS hour, session_id AS session, model, provider, ${SUMS} FROM events
           WHERE seq > ? AND seq <= ? AND action = 'model.invoked' GROUP BY hour, session, model, provider`;
      const flat = (fresh ? this.db.prepare(sql).all(bounds.hi) : this.db.prepare(sql).all(this.lastSeq, bounds.hi)) as Record<string, number | string | null>[];
      for (const f of flat) {
        const cell = { ...f, grp: null, above: {} } as unknown as Cell;
        for (const t of LONG_CONTEXT_THRESHOLDS) {
          cell.above[t] = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
          for (const [key] of BUCKETS) {
            cell.above[t]![key] = f[`${key}_${t}`] as number;
            delete (cell as unknown as Record<string, unknown>)[`${key}_${t}`];
          }
        }
        this.merge(cell);
      }
      this.lastSeq = bounds.hi;
    });
    read();
  }

  private merge(r: Cell): void {
    const key = `${r.hour}\u0000${r.session}\u0000${r.model}\u0000${r.provider}`;
    const c = this.cells.get(key);
    if (!c) this.cells.set(key, r);
    else addInto(c, r);
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
      if (filter.model !== undefined && !(c.model !== null && c.model.startsWith(filter.model))) continue;
      const grp = by === 'session' ? c.session : by === 'model' ? c.model : by === 'provider' ? c.provider : c.hour;
      const key = `${grp}\u0000${c.model}\u0000${c.provider}`;
      const g = out.get(key);
      if (!g) {
        const { hour: _h, session: _s, ...row } = c;
        out.set(key, { ...row, grp, above: copyAbove(c.above) });
        continue;
      }
      addInto(g, c);
    }
    return [...out.values()];
  }
}
