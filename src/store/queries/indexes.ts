import type Database from 'better-sqlite3';

/**
 * A log opened read-only keeps whatever indexes it has (it cannot be migrated): a query names an
 * index only when it exists, and without it still runs, only slower.
 */
export function hasIndex(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(name) !== undefined;
}

/**
 * `INDEXED BY name` when the index exists, else nothing. The dashboard's pages ask on every request:
 * the index names are read once per connection.
 */
export function indexHint(db: Database.Database, name: string): string {
  let known = indexCache.get(db);
  if (!known) {
    known = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").pluck().all() as string[]));
    indexCache.set(db, known);
  }
  return known.has(name) ? `INDEXED BY ${name}` : '';
}
const indexCache = new WeakMap<Database.Database, Set<string>>();
