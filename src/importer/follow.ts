import { existsSync, watch, type FSWatcher } from 'node:fs';
import type { ImportFollowHealth } from '../model/health';
import type { SessionStore } from '../sources/store-registry';
import type { SessionFileRead, Warn } from '../sources/store-read';
import { sessionFiles } from '../sources/store-scan';
import { importFile, recordEvents } from './file-import';
import { importWhole, type WholeSource } from './whole-import';
import type { ImportTarget } from './target';

/**
 * Following the agents' session stores as they write them (issue 31 item 3: `beacon import
 * --follow`, and the collector's `importFollow`). Every `pollMs` a pass walks each store (readdir
 * and lstat only: a file unchanged since its cursor is not opened) and reads what grew from its
 * cursor; `fs.watch` on each store's root (recursive: Codex makes a new YYYY/MM/DD directory each
 * day) only makes a pass come sooner, because it is unreliable on some file systems (network
 * mounts, some containers) and the poll runs regardless.
 *
 * Between passes the reader of a file being written is kept (what it waits for: a tool call's
 * result, a message's last line), so a growth is read from where the last pass stopped. A file
 * not written for `quietMs` is read as finished (a tool call that never got its result is then
 * recorded as far as it is known) and its reader dropped: memory holds only the files in use.
 */

export interface FollowedStore {
  store: SessionStore;
  root: string;
}

export interface FollowBatch {
  harness: string;
  path: string;
  added: number;
  bytes: number;
}

export interface FollowOptions {
  stores: readonly FollowedStore[];
  /** stores read whole (databases): read again each pass they changed (whole-import.ts) */
  wholes?: readonly WholeSource[];
  target: ImportTarget;
  warn: Warn;
  /** a pass at least this often (default 2 s) */
  pollMs?: number;
  /** a file unchanged this long is read as finished (default 10 minutes) */
  quietMs?: number;
  /** each file a pass added events from */
  onBatch?: (batch: FollowBatch) => void;
  /** false: no fs.watch, the poll alone (what a file system without working events gets; tests) */
  watch?: boolean;
}


const WATCH_DEBOUNCE_MS = 200;
/** warnings remembered so each is given once (a symlink in a store would otherwise be warned of every pass) */
const MAX_WARNED = 10_000;

export class StoreFollower {
  private readonly live = new Map<string, SessionFileRead>();
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly warned = new Set<string>();
  private timer?: NodeJS.Timeout;
  private soon?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  private readonly state = { passes: 0, added: 0, bytesRead: 0, lastPassAt: null as string | null, lastError: null as string | null };

  constructor(private readonly o: FollowOptions) {}

  /** The first pass now (what the stores hold that the cursors have not seen), then every `pollMs`. */
  start(): this {
    this.timer = setInterval(() => this.pass(), this.o.pollMs ?? 2000);
    this.timer.unref();
    this.pass();
    return this;
  }

  /** No new pass; resolves once a pass in progress has recorded what it read. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.soon);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    await this.running;
  }

  /** Resolves once the pass in progress (if any) has finished: tests and `--follow`'s first report wait on it. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  health(): ImportFollowHealth {
    return { agents: [...this.o.stores.map((s) => s.store.harness), ...(this.o.wholes ?? []).map((w) => w.harness)], watching: this.watchers.size, open: this.live.size, ...this.state };
  }

  private pass(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.passOnce()
      .catch((e) => {
        this.state.lastError = (e as Error).message;
        this.warn(`following stopped for this pass: ${(e as Error).message}; the next pass tries again`);
      })
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          this.pass();
        }
      });
  }

  private async passOnce(): Promise<void> {
    const warn = (m: string) => this.warn(m);
    const seen = new Set<string>();
    for (const { store, root } of this.o.stores) {
      if (this.stopped) return;
      this.watchRoot(root);
      for (const file of sessionFiles(store, root, warn)) {
        if (this.stopped) return;
        seen.add(file.path);
        const quiet = Date.now() - file.mtimeMs >= (this.o.quietMs ?? 600_000);
        const live = this.live.get(file.path);
        const r = await importFile(store, file, { target: this.o.target, warn, finished: quiet && !live, stopping: () => this.stopped }, live);
        let added = r.added;
        if (r.read && quiet) added += await recordEvents(file.path, r.read.finish(warn), { target: this.o.target, warn });
        if (r.read && !quiet) this.live.set(file.path, r.read);
        else this.live.delete(file.path);
        this.state.added += added;
        this.state.bytesRead += r.bytes;
        if (added > 0 || r.bytes > 0) this.o.onBatch?.({ harness: store.harness, path: file.path, added, bytes: r.bytes });
      }
    }
    for (const source of this.o.wholes ?? []) {
      if (this.stopped) return;
      const r = await importWhole(source, { target: this.o.target, warn });
      this.state.added += r.added;
      if (r.added > 0) this.o.onBatch?.({ harness: source.harness, path: source.path, added: r.added, bytes: 0 });
    }
    for (const path of this.live.keys()) if (!seen.has(path)) this.live.delete(path); // removed, or no longer trusted
    this.state.passes++;
    this.state.lastPassAt = new Date().toISOString();
  }

  /** Watches a store's root once it exists; a watcher that fails is closed, and the poll goes on alone. */
  private watchRoot(root: string): void {
    if (this.o.watch === false || this.watchers.has(root) || !existsSync(root)) return;
    try {
      const w = watch(root, { recursive: true, persistent: false }, () => this.passSoon());
      w.on('error', () => {
        w.close();
        this.watchers.delete(root);
      });
      this.watchers.set(root, w);
    } catch {
      // recursive watching unsupported here, or too many watches: polling only
    }
  }

  private passSoon(): void {
    if (this.soon || this.stopped) return;
    this.soon = setTimeout(() => {
      this.soon = undefined;
      this.pass();
    }, WATCH_DEBOUNCE_MS);
    this.soon.unref();
  }

  private warn(message: string): void {
    if (this.warned.has(message)) return;
    if (this.warned.size < MAX_WARNED) this.warned.add(message);
    this.o.warn(message);
  }
}
