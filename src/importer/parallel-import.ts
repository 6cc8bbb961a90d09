import { availableParallelism } from 'node:os';
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EventRow } from '../ingest/sink';
import type { SessionStore } from '../sources/store-registry';
import { sessionFiles, type SessionFile } from '../sources/store-scan';
import type { FileCursor } from '../store/log/import-cursors';
import { unchanged } from './file-import';
import type { FromReader, ToReader } from './import-worker';
import { importStore, tallyInto, type StoreImported, type StoreImportOptions } from './import-store';

/**
 * `beacon import` on several cores (issue 31 item 4: a month's first import beside ccusage's report).
 * Reading a session store is most of an import's work: JSON.parse of every line, the agent's reader,
 * redaction, serializing the record (in a 20k-call month, 6.4 of 9.5 s of CPU; the log's inserts 3.1).
 * So reading threads (import-worker.ts) take the changed files, each read as importFile reads it in
 * this thread, and this thread writes what they send through the one target, in the order each sent
 * it: per file its rows, then the cursor that covers them, as without threads. The log keeps one
 * writer: no lock between threads, and the store's joins and merges see the rows one transaction after
 * another, as ever. Each thread holds two files at a time (no round trip between files), handed out
 * largest first, so the last to finish is a small one.
 *
 * Threads pay only beyond a few megabytes (each starts in ~40 ms and loads the readers): below
 * `MIN_BYTES` of changed files, with `threads` 0, or with --since (whose cursors are not advanced: a
 * case not worth a second path), a store is imported in this thread (import-store.ts).
 */

export interface ParallelOptions {
  /** reading threads: default one per core beside the writing thread's, at least one, at most three */
  threads?: number;
}

/** changed files' bytes below which no thread is started */
const MIN_BYTES = 4 * 1024 * 1024;
/**
 * Beyond three the one writer is the limit. On two cores one reader: a second one made a 100k-call
 * month slower (53.6 s against 37.3 s with one, 41.7 s with none, a 2-core machine at load 2), as it
 * takes the writer's core, and the writer is what the whole import waits on at that size.
 */
const MAX_THREADS = 3;
/** files a thread holds at once: the next one is there when it finishes one */
const FILES_AHEAD = 2;

interface Reader {
  worker: Worker;
  /** files given and not yet reported done */
  holding: number;
}

/** The reading threads of one `beacon import`: started when a store first needs them, shared by the stores after it. */
export class ReadingThreads {
  private readers: Reader[] = [];
  private readonly threads: number;
  private job?: StoreJob;
  private failure?: Error;

  constructor(p: ParallelOptions = {}) {
    this.threads = p.threads ?? Math.max(1, Math.min(availableParallelism() - 1, MAX_THREADS));
  }

  async importStore(store: SessionStore, root: string, o: StoreImportOptions): Promise<StoreImported> {
    if (this.threads <= 0 || o.sinceNs !== undefined) return importStore(store, root, o);
    const files = sessionFiles(store, root, o.warn);
    const changed = files.filter((f) => !unchanged(f, o.target.cursors.get(f.path)));
    const changedBytes = changed.reduce((n, f) => n + f.size, 0);
    if (changedBytes < MIN_BYTES) return importStore(store, root, o, files); // listed once: a re-import's whole cost is this listing
    const job = new StoreJob(store, o, files.length, changed, changedBytes);
    this.job = job;
    this.start(Math.min(this.threads, changed.length));
    job.result.threads = this.readers.length;
    for (const r of this.readers) this.feed(r);
    await job.finished;
    this.job = undefined;
    if (this.failure) throw this.failure;
    o.target.flush?.();
    return job.result;
  }

  async close(): Promise<void> {
    const ended = this.readers.map((r) => new Promise<void>((resolve) => (r.worker.once('exit', () => resolve()), r.worker.postMessage({ type: 'close' } satisfies ToReader))));
    await Promise.all(ended);
    this.readers = [];
  }

  private start(n: number): void {
    while (this.readers.length < n) {
      const r: Reader = { worker: new Worker(join(__dirname, `import-worker${extname(__filename)}`)), holding: 0 };
      // messages are handled one at a time, in order: a batch is written before the next message is read
      let chain = Promise.resolve();
      r.worker.on('message', (m: FromReader) => {
        chain = chain.then(() => this.handle(r, m)).catch((e: Error) => this.fail(e));
      });
      r.worker.once('error', (e) => this.fail(e));
      this.readers.push(r);
    }
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const r of this.readers) void r.worker.terminate();
    this.readers = [];
    this.job?.end();
  }

  private feed(r: Reader): void {
    const job = this.job;
    while (job && r.holding < FILES_AHEAD) {
      const file = job.queue.shift();
      if (!file) return;
      r.holding++;
      const cursor = job.o.target.cursors.get(file.path);
      r.worker.postMessage({ type: 'file', harness: job.store.harness, file, ...(cursor ? { cursor } : {}) } satisfies ToReader);
    }
  }

  private async handle(r: Reader, m: FromReader): Promise<void> {
    const job = this.job!;
    if (m.type === 'rows') return r.worker.postMessage({ type: 'ack', path: m.path, ...(await job.write(m.path, m.rows)) } satisfies ToReader);
    if (m.type !== 'done') return job.take(m);
    r.holding--;
    job.fileDone(m.path, m.bytes);
    this.feed(r);
    if (job.queue.length === 0 && this.readers.every((x) => x.holding === 0)) job.end();
  }
}

/** One store's import across the threads: what is left to read, the tallies, the progress. */
class StoreJob {
  readonly result: StoreImported;
  readonly queue: SessionFile[];
  readonly finished: Promise<void>;
  end!: () => void;
  private readonly onRows;
  private readonly skipped: number;
  private doneFiles = 0;
  private doneBytes = 0;
  private readonly stepBytes = new Map<string, number>();
  /** files of which a batch could not be written: nothing more of them is written, their cursor neither */
  private readonly failed = new Set<string>();
  private readonly unsaved = new Set<string>();

  constructor(readonly store: SessionStore, readonly o: StoreImportOptions, private readonly files: number, changed: SessionFile[], private readonly total: number) {
    this.result = { files, unchanged: files - changed.length, bytes: 0, tallies: new Map() };
    this.skipped = this.result.unchanged;
    this.queue = [...changed].sort((a, b) => b.size - a.size);
    this.onRows = tallyInto(this.result.tallies, o.utc);
    this.finished = new Promise<void>((resolve) => (this.end = resolve));
  }

  /** Writes a batch; the error, for the reading thread to stop reading that file. */
  async write(path: string, rows: EventRow[]): Promise<{ error?: string }> {
    if (this.failed.has(path)) return { error: 'an earlier batch of this file was not written' };
    try {
      const done = await this.o.target.record(rows);
      this.onRows(rows, done.held);
      return {};
    } catch (e) {
      this.failed.add(path);
      this.o.warn(`${path}: its events could not be written (${(e as Error).message}); what was written before is kept, and the next import reads the file again`);
      return { error: (e as Error).message };
    }
  }

  take(m: Exclude<FromReader, { type: 'rows' } | { type: 'done' }>): void {
    if (m.type === 'cursor') {
      if (!this.failed.has(m.cursor.path)) this.saveCursor(m.cursor);
    } else if (m.type === 'flush') this.o.target.flush?.();
    else if (m.type === 'warn') this.o.warn(m.message);
    else {
      this.stepBytes.set(m.path, m.bytes);
      this.progress();
    }
  }

  fileDone(path: string, bytes: number): void {
    this.stepBytes.delete(path);
    this.failed.delete(path);
    this.result.bytes += bytes;
    if (bytes === 0) this.result.unchanged++;
    this.doneFiles++;
    this.doneBytes += bytes;
    this.progress();
  }

  /** As importFile's cursor saver: a cursor not saved is warned about once, and the next import reads the file again. */
  private saveCursor(c: FileCursor): void {
    try {
      this.o.target.cursors.put(c);
    } catch (e) {
      if (this.unsaved.has(c.path)) return;
      this.unsaved.add(c.path);
      this.o.warn(`${c.path}: where its import stopped is not saved (${(e as Error).message}): the next import reads it again, adding nothing twice`);
    }
  }

  private progress(): void {
    let inStep = 0;
    for (const b of this.stepBytes.values()) inStep += b;
    this.o.progress?.(Math.min(this.skipped + this.doneFiles + 1, this.files), this.files, (this.doneBytes + inStep) / Math.max(this.total, 1));
  }
}
