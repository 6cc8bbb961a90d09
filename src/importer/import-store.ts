import type { EventRow } from '../ingest/sink';
import type { SessionStore } from '../sources/store-registry';
import { sessionFiles, type SessionFile, type Warn } from '../sources/store-scan';
import { importFile } from './file-import';
import type { ImportTarget } from './target';

/**
 * One store imported once (`beacon import`): every session file under its root read from its
 * cursor as finished, and what it came to per month (what `--dry-run` would add, too).
 */

/** What one agent's import came to in one month. */
export interface Tally {
  added: number;
  present: number;
  /** added, by kind: prompt, model call, tool call */
  byKind: Map<string, number>;
}

export interface StoreImported {
  files: number;
  /** files read not at all: unchanged since their cursor */
  unchanged: number;
  /** bytes read from the store's files */
  bytes: number;
  tallies: Map<string, Tally>;
  /** the reading threads that shared the work (parallel-import.ts); absent: read in the importing thread */
  threads?: number;
}

export interface StoreImportOptions {
  target: ImportTarget;
  warn: Warn;
  sinceNs?: bigint;
  /** months counted in UTC rather than the local zone */
  utc: boolean;
  /** where the import is: files done, of how many, and the share of their bytes */
  progress?: (file: number, files: number, share: number) => void;
}

/** `listed`: the store's session files, when the caller has listed them already (parallel-import.ts) */
export async function importStore(store: SessionStore, root: string, o: StoreImportOptions, listed?: SessionFile[]): Promise<StoreImported> {
  const files = (listed ?? sessionFiles(store, root, o.warn)).filter((f) => o.sinceNs === undefined || BigInt(Math.floor(f.mtimeMs)) * 1_000_000n >= o.sinceNs);
  const result: StoreImported = { files: files.length, unchanged: 0, bytes: 0, tallies: new Map() };
  const total = files.reduce((n, f) => n + f.size, 0);
  let done = 0;
  const onRows = tallyInto(result.tallies, o.utc);
  for (const [i, file] of files.entries()) {
    o.progress?.(i + 1, files.length, done / Math.max(total, 1));
    const r = await importFile(store, file, {
      target: o.target, warn: o.warn, finished: true, onRows, ...(o.sinceNs !== undefined ? { sinceNs: o.sinceNs } : {}),
      onStep: (bytes) => o.progress?.(i + 1, files.length, (done + bytes) / Math.max(total, 1)),
    });
    if (r.bytes === 0) result.unchanged++;
    result.bytes += r.bytes;
    done += file.size;
  }
  o.target.flush?.();
  return result;
}

export const KINDS = ['prompt', 'model call', 'tool call'];

/** Counts rows into `tallies` per month and kind (an `onRows` for recordEvents/importWhole: a database store's import tallies the same way). */
export function tallyInto(tallies: Map<string, Tally>, utc: boolean): (rows: EventRow[], held: boolean[] | undefined) => void {
  return (rows, held) => rows.forEach((row, i) => count(tallies, row, held?.[i] ?? false, utc));
}

function count(tallies: Map<string, Tally>, row: EventRow, held: boolean, utc: boolean): void {
  const d = new Date(Number(row.tsNs / 1_000_000n));
  const month = utc ? d.toISOString().slice(0, 7) : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
  let t = tallies.get(month);
  if (!t) tallies.set(month, (t = { added: 0, present: 0, byKind: new Map() }));
  if (held) t.present++;
  else {
    t.added++;
    const kind = row.action === 'model.invoked' ? 'model call' : row.action === 'prompt.submitted' ? 'prompt' : 'tool call';
    t.byKind.set(kind, (t.byKind.get(kind) ?? 0) + 1);
  }
}
