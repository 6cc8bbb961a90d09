import type Database from 'better-sqlite3';
import type { HealthReport } from '../model/health';
import type { Catalog, Overrides } from '../pricing/catalog';
import type { SessionDetailCache } from '../store/queries/sessions';

/** What a page needs: a read-only connection to the log, the prices, the collector's health, and the clock. */
export interface DashboardContext {
  db: Database.Database;
  sessionDetails: SessionDetailCache;
  logPath: string;
  catalog: Catalog;
  overrides?: Overrides;
  /** the collector's health report (the `GET /health` body); a report that failed is `{ status: 'unavailable' }` */
  health(): Partial<HealthReport>;
  retention: { maxAgeDays: number; maxBytes: number };
  nowMs: number;
}

/** A page's query string, as fastify parsed it: repeated keys arrive as arrays; pages read the first. */
export type Query = Record<string, string | string[] | undefined>;

export function param(q: Query, key: string): string | undefined {
  const v = q[key];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
}
