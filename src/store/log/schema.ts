import type Database from 'better-sqlite3';
import { BeaconError } from '../../model/errors';
import { CELLS_MIGRATION, CELLS_UPDATE_OF_MIGRATION } from './usage-cells';

/** 'Beac' in ASCII: marks a SQLite file as a Beacon event log (PRAGMA application_id). */
export const APPLICATION_ID = 0x42656163;
/** Bumped on every incompatible change of the tables below; a newer file is refused, never rewritten. */
export const STORE_SCHEMA_VERSION = 8;

const DDL = `
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,   -- commit order: followers and exporters keep a cursor on it
  id TEXT NOT NULL UNIQUE,                 -- event.id; INSERT OR IGNORE makes retries and replays no-ops
  ts_ns INTEGER NOT NULL,                  -- event time, ns since the epoch
  harness TEXT NOT NULL,
  method TEXT NOT NULL,                    -- harness.collection_method: otlp | hook | stream | poll
  action TEXT NOT NULL,
  session_id TEXT,
  trace_id TEXT,
  span_id TEXT,
  parent_span_id TEXT,
  tool_call_id TEXT,
  model TEXT,
  provider TEXT,
  input_tokens INTEGER,                    -- disjoint buckets: input excludes both cache buckets
  output_tokens INTEGER,
  cache_read_tokens INTEGER,
  cache_creation_tokens INTEGER,
  reasoning_tokens INTEGER,                -- inside output_tokens, never added to it
  cost_usd REAL,                           -- only a cost the runtime itself reported
  record TEXT NOT NULL                     -- the Beacon record (schema 1.0), JSON
);  -- v3 adds received_ns (see MIGRATIONS)
CREATE INDEX events_ts ON events(ts_ns);
CREATE INDEX events_session ON events(session_id, ts_ns);
CREATE INDEX events_trace ON events(trace_id, parent_span_id);
`;

/**
 * Whether an event is a command that exited non-zero, as `events_session` (v5) holds it: a query that
 * names this expression reads it from the index, never the record. A reader matches it exactly.
 */
export const COMMAND_FAILED_SQL = "CASE WHEN action = 'command.executed' THEN coalesce(json_extract(record, '$.command.exit_code'), 0) <> 0 ELSE 0 END";

/** A model call's duration (`gen_ai.duration_ms`) as `events_latency` (v5) holds it; a reader names it exactly. */
export const DURATION_SQL = "json_extract(record, '$.gen_ai.duration_ms')";

/**
 * An event that names the repository (working directory) it ran in, as `events_origin` (v8) holds
 * it: a reader names it exactly. `instr` first: most records have no such key (records are
 * JSON.stringify's, which never escapes a letter of a key), and it passes over them unparsed.
 */
export const NAMES_REPOSITORY_SQL = `instr(record, '"repository"') > 0 AND json_extract(record, '$.repository') IS NOT NULL`;

/** A failed shell call (tool.failed with its command), as `events_failed_shell` (v8) holds it; a reader names it exactly. */
export const FAILED_SHELL_SQL = "action = 'tool.failed' AND json_extract(record, '$.command') IS NOT NULL";

/** Each migration takes the log from version N-1 to N (index N-2 here). */
export const MIGRATIONS: readonly string[] = [
  // 2: `beacon token-usage` reads model calls from this index alone, never the records (1M calls < 1 s).
  `CREATE INDEX IF NOT EXISTS events_usage ON events(ts_ns, model, provider, session_id, harness, method,
     input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens, cost_usd)
   WHERE action = 'model.invoked';
   CREATE INDEX IF NOT EXISTS events_stream_usage ON events(ts_ns) WHERE action = 'usage.reported';`,
  // 3: retention judges age by when Beacon stored an event, not by the event's own clock (a span
  // stamped 1970 would otherwise be pruned at once). Adding a column is O(1) in SQLite; rows stored
  // before v3 keep NULL and are judged by event time, through an index that holds only them.
  `ALTER TABLE events ADD COLUMN received_ns INTEGER;
   CREATE INDEX IF NOT EXISTS events_received ON events(received_ns);
   CREATE INDEX IF NOT EXISTS events_legacy_ts ON events(ts_ns) WHERE received_ns IS NULL;`,
  // 4: one durable cursor per forward destination (src/forward): the last `seq` its receiver acknowledged.
  `CREATE TABLE IF NOT EXISTS forward_cursors (
     name TEXT PRIMARY KEY,                 -- the destination's configured name: its identity
     seq INTEGER NOT NULL,                  -- every event with seq <= this one is acknowledged
     updated_ns INTEGER NOT NULL
   );`,
  // 5: `beacon token-usage` on 1M events reads a persisted rollup kept by triggers (usage_cells and
  // usage_totals, see usage-cells.ts; built here from events_usage) and its latency percentiles from
  // an index ordered by duration (events_latency); the usage index is then needed only for the partial
  // quarter hours at a window's edges, which events_ts finds, so events_latency replaces it. `beacon
  // sessions` reads what a session did from the session index alone: it now covers action, method,
  // tool call id and whether a command failed. Two indexes replaced, none added; a duration and an
  // exit code are read from the record once, when the event is stored.
  `${CELLS_MIGRATION}
   DROP INDEX IF EXISTS events_usage;
   -- action is a column too: SQLite reads an indexed expression from a partial index only when the
   -- index holds every column the query names, its own condition's included.
   CREATE INDEX IF NOT EXISTS events_latency ON events(model, provider, (${DURATION_SQL}), action) WHERE action = 'model.invoked';
   DROP INDEX IF EXISTS events_session;
   CREATE INDEX events_session ON events(session_id, ts_ns, action, method, tool_call_id, (${COMMAND_FAILED_SQL}));`,
  // 6: the rollup's update triggers fire only when a column they read is set (usage-cells.ts), so
  // `beacon import` merging what a session store knew into a stored call's record leaves its cells be;
  // and the imported events (method poll) in an index of their own, where an OTLP model call or
  // prompt looks for its imported twin (merge.ts): empty, one seek, in a log that has none.
  `${CELLS_UPDATE_OF_MIGRATION}
   CREATE INDEX IF NOT EXISTS events_poll ON events(session_id, ts_ns) WHERE method = 'poll';`,
  // 7: `beacon import` (and its follow) remembers per session file what it has read (store/log/
  // import-cursors.ts), so a re-import of unchanged files reads nothing and an appended file is read
  // from where it stopped. Offsets and a reader's small content-free context only: never a line's text.
  `CREATE TABLE IF NOT EXISTS import_cursors (
     path TEXT PRIMARY KEY,                 -- the session file, absolute
     harness TEXT NOT NULL,
     dev TEXT NOT NULL,                     -- device and inode (as decimal text: they may exceed 2^53):
     ino TEXT NOT NULL,                     --   another file at the same path is read from its start
     size INTEGER NOT NULL,                 -- bytes seen when it was last read
     mtime_ns INTEGER NOT NULL,             -- its mtime before that read: same size and mtime, nothing to read
     read_offset INTEGER NOT NULL,          -- the end of the last complete line read
     resume_offset INTEGER NOT NULL,        -- a fresh reader starts here: no line before it is still pending
     context TEXT,                          -- the reader's context at resume_offset (JSON: ids, model, flags)
     updated_ns INTEGER NOT NULL
   );`,
  // 8: `beacon sessions` (and token-usage --by session/repository) finds where a session ran, and
  // its failed shell calls, in two partial indexes: one seek each. Without them a session none of
  // whose records names a repository (goose's OTLP spans) was read to its end for it, and every
  // tool.failed record parsed (issue 33: 13 goose sessions of 800 spans were half of the command).
  // An event is tested once, when it is stored; the build reads every record once.
  `CREATE INDEX IF NOT EXISTS events_origin ON events(session_id, ts_ns) WHERE ${NAMES_REPOSITORY_SQL};
   CREATE INDEX IF NOT EXISTS events_failed_shell ON events(session_id) WHERE ${FAILED_SHELL_SQL};`,
];

/**
 * Checks that `db` is a Beacon event log this version can write, creating the schema in a new file.
 * A foreign or newer file is refused with a message naming the path; it is never modified.
 */
export function ensureSchema(db: Database.Database, path: string): void {
  const state = readIdentity(db, path);
  if (state === 'ours' && (db.pragma('user_version', { simple: true }) as number) === STORE_SCHEMA_VERSION) return;
  // Retention frees pages; incremental auto-vacuum lets it give them back to the file system. It can
  // only be chosen before the first table exists, and not inside a transaction.
  if (state === 'empty') db.pragma('auto_vacuum = INCREMENTAL');
  // Two processes may create the log at once (the collector and a hook): decide under the write lock.
  db.exec('BEGIN IMMEDIATE');
  try {
    if (readIdentity(db, path) === 'empty') {
      db.exec(DDL);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma('user_version = 1');
    }
    const from = db.pragma('user_version', { simple: true }) as number;
    for (let v = from + 1; v <= STORE_SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v - 2]!);
    db.pragma(`user_version = ${STORE_SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (e) {
    db.exec('ROLLBACK');
    throw e;
  }
}

/** What the file is: an empty database, or a Beacon log this version reads. Anything else throws. */
function readIdentity(d: Database.Database, path: string): 'ours' | 'empty' {
  const appId = d.pragma('application_id', { simple: true }) as number;
  const version = d.pragma('user_version', { simple: true }) as number;
  if (appId === APPLICATION_ID) {
    if (version > STORE_SCHEMA_VERSION) {
      throw new BeaconError('log_incompatible', `${path} was written by a newer Beacon (event log schema ${version}, this one reads ${STORE_SCHEMA_VERSION}); upgrade Beacon or use another --log`);
    }
    return 'ours';
  }
  const tables = d.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number };
  if (appId !== 0 || tables.n > 0) {
    throw new BeaconError('log_incompatible', `${path} is a SQLite database but not a Beacon event log; refusing to write to it (use another --log)`);
  }
  return 'empty';
}

/** For readers (read-only connections): the same checks, and an empty file is no log yet. */
export function checkReadable(db: Database.Database, path: string): void {
  if (readIdentity(db, path) === 'empty') throw new BeaconError('log_incompatible', `${path} is not a Beacon event log (it is empty)`);
}
