import type { NormalizedEvent } from '../model/record';
import { openPrivateCopy, type DatabaseStore } from '../sources/store-db';
import type { Warn } from '../sources/store-read';
import type { WholeSource } from './whole-import';

/**
 * A database store as a source read whole (whole-import.ts: its cursor is the database's and its
 * -wal's stamp, so an unchanged database is not even copied): each read is a fresh private copy,
 * removed when the read ends. A read that fails midway (a corrupt page) is warned about and ends
 * there: what was recorded before stays, and the merge makes a later read add nothing twice.
 */
export function databaseSource(store: DatabaseStore, path: string): WholeSource {
  return {
    harness: store.harness,
    path,
    *read(warn: Warn): Iterable<NormalizedEvent[]> {
      const copy = openPrivateCopy(path, warn);
      if (!copy) return;
      try {
        for (const batch of store.read(copy.db, (m) => warn(m.split(copy.db.name).join(path)))) yield batch;
      } catch (e) {
        warn(`${path}: reading stopped (${(e as Error).message}); what was read before is kept`);
      } finally {
        copy.close();
      }
    },
  };
}
