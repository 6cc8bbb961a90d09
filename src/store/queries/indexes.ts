import type Database from 'better-sqlite3';

/**
 * A log opened read-only keeps whatever indexes and tables it has (it cannot be migrated): a query
 * names an index only when it exists, and without it still runs, only slower. The names are read
 * once per connection: the dashboard's pages and a token-usage query ask several times each.
 */
function schemaNames(db: Database.Database): Set<string> {
  let known = schemaCache.get(db);
  if (!known) {
    known = new Set(db.prepare("SELECT type || ':' || name FROM sqlite_master WHERE type IN ('index', 'table')").pluck().all() as string[]);
    schemaCache.set(db, known);
  }
  return known;
}
const schemaCache = new WeakMap<Database.Database, Set<string>>();

export function hasIndex(db: Database.Database, name: string): boolean {
  return schemaNames(db).has(`index:${name}`);
}

export function hasTable(db: Database.Database, name: string): boolean {
  return schemaNames(db).has(`table:${name}`);
}

/** `INDEXED BY name` when the index exists, else nothing. */
export function indexHint(db: Database.Database, name: string): string {
  return hasIndex(db, name) ? `INDEXED BY ${name}` : '';
}
