import { homedir } from 'node:os';
import type { Logger } from 'pino';
import { StoreFollower } from '../importer/follow';
import type { ImportTarget } from '../importer/target';
import type { EventSink } from '../ingest/sink';
import { BeaconError } from '../model/errors';
import type { ImportFollowHealth } from '../model/health';
import { SESSION_STORES, sessionStoreNamed, type SessionStore } from '../sources/store-registry';
import { DATABASE_STORES, databaseStoreNamed } from '../sources/store-db-registry';
import type { DatabaseStore } from '../sources/store-db';
import { databaseSource } from '../importer/database-import';
import { EventLog } from '../store/log/event-log';
import { ImportCursors } from '../store/log/import-cursors';

const CURSOR_BUSY_MS = 250;

export interface ImportFollowLoop {
  /** no new pass; resolves once a pass in progress has committed what it read */
  stop(): Promise<void>;
  health(): ImportFollowHealth;
}

export interface ImportFollowOptions {
  logPath: string;
  /** the `importFollow` setting: `all`, or agent names, comma-separated */
  agents: string;
  /** the collector's writer thread: the follow's rows are committed like any export's */
  sink: EventSink;
  busyTimeoutMs: number;
  /** the collector's environment: the agents' override variables (CLAUDE_CONFIG_DIR, CODEX_HOME) and HOME */
  env: NodeJS.ProcessEnv;
  pollMs?: number;
}

/** The stores `importFollow` names; an unknown name fails the start (a typo would otherwise follow nothing, silently). */
export function followedStores(setting: string): SessionStore[] {
  return chosen(setting).filter((s): s is SessionStore => 'root' in s);
}

/** The database stores (opencode, goose) `importFollow` names. */
export function followedDatabases(setting: string): DatabaseStore[] {
  return chosen(setting).filter((s): s is DatabaseStore => 'path' in s);
}

function chosen(setting: string): (SessionStore | DatabaseStore)[] {
  const words = setting.split(',').map((w) => w.trim()).filter(Boolean);
  if (words.length === 1 && words[0]!.toLowerCase() === 'all') return [...SESSION_STORES, ...DATABASE_STORES];
  return words.map((w) => {
    const store = sessionStoreNamed(w) ?? databaseStoreNamed(w);
    if (!store) throw new BeaconError('bad_data', `importFollow: unknown agent "${w}" (known: all, ${[...SESSION_STORES, ...DATABASE_STORES].flatMap((s) => s.names).join(', ')})`);
    return store;
  });
}

/**
 * The collector follows the agents' own session stores (issue 31 item 3), so an agent that was
 * never set up for Beacon still shows up: `beacon import --follow`'s follower (importer/follow.ts),
 * its rows committed through the writer thread, its cursors on a connection of its own (a row per
 * file, after each commit). Its passes yield between steps: a 1 GB transcript never holds the receiver's
 * event loop for more than a step.
 */
export function startImportFollow(o: ImportFollowOptions, logger: Logger): ImportFollowLoop {
  const stores = followedStores(o.agents);
  const databases = followedDatabases(o.agents);
  // The cursors are written on the receiver's thread: a lock held elsewhere (retention) may cost it
  // this long at most, then the cursor waits for the next pass (reading again adds nothing).
  const log = EventLog.open(o.logPath, { busyTimeoutMs: Math.min(o.busyTimeoutMs, CURSOR_BUSY_MS), hookConnection: true });
  const target: ImportTarget = {
    cursors: new ImportCursors(log.db),
    record: async (rows) => ({ added: (await o.sink.append(rows)).inserted }),
    spooled: () => 0,
    close: () => log.close(),
  };
  const home = o.env.HOME || homedir();
  const follower = new StoreFollower({
    stores: stores.map((store) => ({ store, root: store.root(home, o.env) })),
    wholes: databases.map((d) => databaseSource(d, d.path(home, o.env))),
    target,
    // a path and what is wrong with it: never a line's content
    warn: (m) => logger.warn({ warning: m }, 'session store import'),
    onBatch: (b) => b.added > 0 && logger.info({ harness: b.harness, added: b.added, bytes: b.bytes }, 'session store events imported'),
    ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}),
  }).start();
  return {
    async stop() {
      await follower.stop();
      target.close();
    },
    health: () => follower.health(),
  };
}
