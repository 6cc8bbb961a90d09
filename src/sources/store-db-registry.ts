import { gooseStore } from './goose/store-goose';
import { opencodeStore } from './opencode/store-opencode';
import type { DatabaseStore } from './store-db';

/** The agents whose session store is a SQLite database (store-db.ts): one line each. */
export const DATABASE_STORES: readonly DatabaseStore[] = [opencodeStore, gooseStore];

/** The database store a word names (`opencode`, `goose`), if any. */
export function databaseStoreNamed(word: string): DatabaseStore | undefined {
  const w = word.trim().toLowerCase();
  return DATABASE_STORES.find((s) => s.names.includes(w));
}
