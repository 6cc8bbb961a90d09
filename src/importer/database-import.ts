import type { NormalizedEvent } from '../model/record';
import type { ReaderContext } from '../sources/store-registry';
import { openPrivateCopy, type DatabaseStore } from '../sources/store-db';
import type { Warn } from '../sources/store-read';
import type { WholeSource } from './whole-import';

/**
 * A database store as a source read whole (whole-import.ts: its cursor is the database's and its
 * -wal's stamp, so an unchanged database is not even copied): each read is a fresh private copy,
 * removed when the read ends. A read that fails midway (a corrupt page) is warned about and ends
 * there: what was recorded before stays, and the merge makes a later read add nothing twice.
 * The read returns the store's per-row mark of the copy (`DatabaseStore.mark`), which the next read
 * is given as `since`: only the sessions with rows past it are read. A read that stopped returns
 * none, so the next one reads everything.
 */
export function databaseSource(store: DatabaseStore, path: string): WholeSource {
  return {
    harness: store.harness,
    path,
    *read(warn: Warn, since?: ReaderContext): Generator<NormalizedEvent[], ReaderContext | undefined> {
      const copy = openPrivateCopy(path, warn);
      if (!copy) return undefined;
      try {
        const mark = store.mark?.(copy.db); // the copy is a snapshot: its mark before the read is its mark after
        for (const batch of store.read(copy.db, (m) => warn(m.split(copy.db.name).join(path)), since)) yield batch;
        return mark;
      } catch (e) {
        warn(`${path}: reading stopped (${(e as Error).message}); what was read before is kept`);
        return undefined;
      } finally {
        copy.close();
      }
    },
  };
}
