import { parentPort } from 'node:worker_threads';
import type { EventRow } from '../ingest/sink';
import { SESSION_STORES } from '../sources/store-registry';
import type { SessionFile } from '../sources/store-scan';
import type { FileCursor } from '../store/log/import-cursors';
import { importFile } from './file-import';
import type { ImportTarget, Recorded } from './target';

/**
 * A reading thread of `beacon import` (parallel-import.ts): it reads, parses, normalizes and redacts
 * the session files it is given, as the import's own thread would (importFile, toRows), and sends
 * each step's rows and cursor to the importing thread, which alone writes the log. So the log keeps
 * one writer and one order per file (rows, then the cursor that covers them), while the reading of
 * several files, most of an import's work, shares the machine's cores.
 */

/** What the importing thread sends: a file to read (with its cursor), or the ack of a batch of rows. */
export type ToReader =
  | { type: 'file'; harness: string; file: SessionFile; cursor?: FileCursor }
  | { type: 'ack'; path: string; error?: string }
  | { type: 'close' };

/** What a reader sends, in the order it happened. */
export type FromReader =
  | { type: 'rows'; path: string; rows: EventRow[] }
  | { type: 'cursor'; cursor: FileCursor }
  | { type: 'flush' }
  | { type: 'warn'; message: string }
  | { type: 'step'; path: string; bytes: number }
  | { type: 'done'; path: string; bytes: number };

/** Batches sent and not yet written: a reader ahead of the writer by this many waits (bounded memory). */
const IN_FLIGHT = 2;

/** The importing thread, seen from a reader: rows and cursors go to it as messages. */
class RelayTarget implements ImportTarget {
  private path = '';
  private cursor?: FileCursor;
  private inFlight = 0;
  private waiting: (() => void)[] = [];
  private failed?: string;
  readonly cursors = {
    get: (path: string) => (this.cursor?.path === path ? this.cursor : undefined),
    put: (c: FileCursor) => send({ type: 'cursor', cursor: c }),
  };

  forFile(path: string, cursor: FileCursor | undefined): void {
    this.path = path;
    this.cursor = cursor;
    this.failed = undefined;
  }

  /** A batch written (or not: `error`, for the file it was of, which stops reading it if it is still being read). */
  acked(path: string, error: string | undefined): void {
    this.inFlight--;
    if (error !== undefined && path === this.path) this.failed = error;
    this.waiting.shift()?.();
  }

  async record(rows: EventRow[]): Promise<Recorded> {
    if (this.failed !== undefined) throw new Error(this.failed);
    if (rows.length === 0) return { added: 0, held: [] };
    while (this.inFlight >= IN_FLIGHT) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.failed !== undefined) throw new Error(this.failed);
    this.inFlight++;
    send({ type: 'rows', path: this.path, rows });
    return { added: 0 }; // the writer counts what was added (its tallies): a reader cannot know
  }

  spooled(): number {
    return 0;
  }

  flush(): void {
    send({ type: 'flush' });
  }

  close(): void {}
}

function send(m: FromReader): void {
  parentPort!.postMessage(m);
}

const target = new RelayTarget();
let queue = Promise.resolve();

parentPort!.on('message', (m: ToReader) => {
  if (m.type === 'ack') return target.acked(m.path, m.error);
  if (m.type === 'close') return void queue.then(() => parentPort!.close());
  queue = queue.then(async () => {
    const store = SESSION_STORES.find((s) => s.harness === m.harness)!;
    target.forFile(m.file.path, m.cursor);
    const warn = (message: string) => send({ type: 'warn', message });
    const r = await importFile(store, m.file, { target, warn, finished: true, onStep: (bytes) => send({ type: 'step', path: m.file.path, bytes }) });
    send({ type: 'done', path: m.file.path, bytes: r.bytes }); // its rows may still be on their way: the writer takes them in order
  });
});
