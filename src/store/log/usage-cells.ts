import { LONG_CONTEXT_THRESHOLDS } from '../../model/usage';

/**
 * The persisted usage rollup (schema v5): the sums of model calls (`USAGE_SUMS`, the same sums
 * `USAGE_SUMS_SQL` computes) per quarter hour, at two grains, each a table of cells:
 * - `usage_cells`: per (session, model, provider, harness, quarter hour), for a session's usage and
 *   for usage by session. Keyed session first, so one session is a key range and grouping by session
 *   follows the key order (no sort of the cells).
 * - `usage_totals`: per (quarter hour, harness, model, provider), for every other grouping. A busy
 *   log has many sessions in each quarter hour (the 1M-event bench: 100 sessions in each of 2,880,
 *   288k session cells for 500k calls, ~200 ms to sum), but only a few models: 5.8k total cells.
 * Triggers on `events` keep both exact whoever writes the log (the collector's writer thread, a
 * hook's fallback write, the chat-wrapper dedup's delete, retention's deletes): an INSERT OR IGNORE
 * that ignores a retry fires no trigger, so it adds nothing. `queryUsage` reads the cells for the
 * whole quarter hours of a window and the events' rows for its partial edges (queries/usage.ts).
 *
 * A cell's key columns are NOT NULL (a WITHOUT ROWID primary key, so an upsert finds its cell in
 * one b-tree seek and a reader walks the cells in key order): a missing session, model or provider
 * is stored as the empty blob x'', which never equals a text, so a filter on a text never matches
 * it, as it never matches NULL; readers turn it back into NULL with `nullif(col, x'')`.
 *
 * The columns follow `USAGE_SUMS`, and this SQL is the v5 migration, which a log runs once: changing
 * the sums (a new long-context threshold) changes it, and a test that pins every shipped migration
 * then fails. Such a change needs a new migration that DROPs the tables and triggers first (these
 * builders say IF NOT EXISTS, which would keep the old ones) and builds them again.
 */
export const CELLS = { session: 'usage_cells', total: 'usage_totals' } as const;

/**
 * Calendar groupings come back as quarter-hour indexes (ns / 15 min, UTC): the caller labels them
 * hour, day, week or month in the user's zone. SQLite's `localtime` would need the system's tz
 * files and could disagree with the zone Node shows times in; every UTC offset in use is a multiple
 * of 15 minutes, so quarter hours fall inside one local hour, and a cell never straddles two.
 */
export const QUARTER_HOUR_NS = 900_000_000_000n;

/** The token buckets and the columns they are summed from. */
export const BUCKET_COLUMNS = [['input', 'input_tokens'], ['output', 'output_tokens'], ['cacheRead', 'cache_read_tokens'], ['cacheWrite', 'cache_creation_tokens']] as const;
/** A call's prompt: its input with both cache buckets (what the long-context thresholds are about). */
const prompt = (r = '') => `(coalesce(${r}input_tokens, 0) + coalesce(${r}cache_read_tokens, 0) + coalesce(${r}cache_creation_tokens, 0))`;
const above = (t: number, col: string) => `coalesce(sum(CASE WHEN ${prompt()} > ${t} THEN ${col} END), 0)`;
export const aboveName = (key: string, t: number) => `${key}_${t}`;

/**
 * Each sum of a usage row, by name (the alias `USAGE_SUMS_SQL` gives it, and the `usage_cells` column
 * that holds it), with what one model call adds to it: `r` prefixes the event's columns (`NEW.` in a
 * trigger). Summed over a group's calls these are exactly `USAGE_SUMS_SQL`; the cells tests compare them.
 */
export const USAGE_SUMS: readonly { name: string; call: (r: string) => string }[] = [
  { name: 'calls', call: () => '1' },
  ...BUCKET_COLUMNS.map(([key, col]) => ({ name: key, call: (r: string) => `coalesce(${r}${col}, 0)` })),
  { name: 'reasoning', call: (r) => `coalesce(${r}reasoning_tokens, 0)` },
  { name: 'reportedCost', call: (r) => `${r}cost_usd` },
  { name: 'reportedCalls', call: (r) => `(${r}cost_usd IS NOT NULL)` },
  ...LONG_CONTEXT_THRESHOLDS.flatMap((t) => BUCKET_COLUMNS.map(([key, col]) => ({
    name: aboveName(key, t),
    call: (r: string) => `(CASE WHEN ${prompt(r)} > ${t} THEN coalesce(${r}${col}, 0) ELSE 0 END)`,
  }))),
];

/** The aggregate columns of a usage row, for a `SELECT … GROUP BY`; `usageRowOf` folds a result row into a `UsageRow`. */
export const USAGE_SUMS_SQL = `count(*) AS calls,
  coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output,
  coalesce(sum(cache_read_tokens), 0) AS cacheRead, coalesce(sum(cache_creation_tokens), 0) AS cacheWrite,
  coalesce(sum(reasoning_tokens), 0) AS reasoning, sum(cost_usd) AS reportedCost, count(cost_usd) AS reportedCalls,
  ${LONG_CONTEXT_THRESHOLDS.map((t) => BUCKET_COLUMNS.map(([key, col]) => `${above(t, col)} AS ${aboveName(key, t)}`).join(', ')).join(',\n  ')}`;

const KEYS = {
  [CELLS.session]: ['session_id', 'model', 'provider', 'harness', 'bucket'],
  [CELLS.total]: ['bucket', 'harness', 'model', 'provider'],
} as const;
type Table = keyof typeof KEYS;
const TABLES = Object.keys(KEYS) as Table[];
const NAMES = USAGE_SUMS.map((s) => s.name);

/** A key column as a cell stores it, from an event's columns (`r` prefixes them: NEW. or OLD. in a trigger). */
const keyOf = (col: string, r: string) => (col === 'bucket' ? `${r}ts_ns / ${QUARTER_HOUR_NS}` : col === 'harness' ? `${r}harness` : `ifnull(${r}${col}, x'')`);
const cellOf = (t: Table, r: string) => KEYS[t].map((k) => `${k} = ${keyOf(k, r)}`).join(' AND ');

/** What one model call adds; the reported cost stays NULL until a call reports one (as sum() does). */
const add = (t: Table, r: string) => `INSERT INTO ${t} (${[...KEYS[t], ...NAMES].join(', ')})
    VALUES (${[...KEYS[t].map((k) => keyOf(k, r)), ...USAGE_SUMS.map((s) => s.call(r))].join(', ')})
    ON CONFLICT DO UPDATE SET ${USAGE_SUMS.map((s) =>
      s.name === 'reportedCost' ? `reportedCost = CASE WHEN excluded.reportedCost IS NULL THEN reportedCost ELSE coalesce(reportedCost, 0) + excluded.reportedCost END` : `${s.name} = ${s.name} + excluded.${s.name}`).join(', ')};`;

/** What one model call took away; a cell with no call left is removed (retention leaves no empty cells behind). */
const subtract = (t: Table, r: string) => `UPDATE ${t} SET ${USAGE_SUMS.map((s) =>
      s.name === 'reportedCost' ? `reportedCost = CASE WHEN ${r}cost_usd IS NULL THEN reportedCost WHEN reportedCalls = 1 THEN NULL ELSE reportedCost - ${r}cost_usd END` : `${s.name} = ${s.name} - ${s.call(r)}`).join(', ')}
    WHERE ${cellOf(t, r)};
    DELETE FROM ${t} WHERE ${cellOf(t, r)} AND calls = 0;`;

const table = (t: Table) => `CREATE TABLE IF NOT EXISTS ${t} (
     ${KEYS[t].map((k) => (k === 'bucket' ? 'bucket INTEGER NOT NULL' : k === 'harness' ? 'harness TEXT NOT NULL' : `${k} NOT NULL`)).join(', ')},
     ${USAGE_SUMS.map((s) => `${s.name} ${s.name === 'reportedCost' ? 'REAL' : 'INTEGER NOT NULL'}`).join(', ')},
     PRIMARY KEY (${KEYS[t].join(', ')})
   ) WITHOUT ROWID;
   DELETE FROM ${t};
   INSERT INTO ${t} (${[...KEYS[t], ...NAMES].join(', ')})
     SELECT ${[...KEYS[t], ...NAMES].join(', ')} FROM (
       SELECT ${KEYS[t].map((k) => `${keyOf(k, '')} AS ${k}`).join(', ')}, ${USAGE_SUMS_SQL}
       FROM events WHERE action = 'model.invoked' GROUP BY ${KEYS[t].map((_k, i) => i + 1).join(', ')});`;

/** The v5 migration: the tables with the cells of the rows already stored, and the triggers (an UPDATE of a row is taken out as the old row, added as the new). */
export const CELLS_MIGRATION = `${TABLES.map(table).join('\n')}
   CREATE TRIGGER IF NOT EXISTS usage_cells_insert AFTER INSERT ON events WHEN NEW.action = 'model.invoked' BEGIN ${TABLES.map((t) => add(t, 'NEW.')).join('\n')} END;
   CREATE TRIGGER IF NOT EXISTS usage_cells_delete AFTER DELETE ON events WHEN OLD.action = 'model.invoked' BEGIN ${TABLES.map((t) => subtract(t, 'OLD.')).join('\n')} END;
   CREATE TRIGGER IF NOT EXISTS usage_cells_update_old AFTER UPDATE ON events WHEN OLD.action = 'model.invoked' BEGIN ${TABLES.map((t) => subtract(t, 'OLD.')).join('\n')} END;
   CREATE TRIGGER IF NOT EXISTS usage_cells_update_new AFTER UPDATE ON events WHEN NEW.action = 'model.invoked' BEGIN ${TABLES.map((t) => add(t, 'NEW.')).join('\n')} END;`;

/** The sums of the cells a query selects, named as `USAGE_SUMS_SQL` names them (so `usageRowOf` reads them). */
export const CELL_SUMS_SQL = USAGE_SUMS.map((s) => `sum(${s.name}) AS ${s.name}`).join(', ');

/**
 * The v6 migration: the update triggers fire only on an UPDATE that sets a column the cells read
 * (their keys and sums). `beacon import`'s merge (merge.ts) rewrites a stored model call's record
 * with what the store added to it: taking the call out of its cells and adding it back would change
 * nothing but the reported cost's last bits (floating point: (s - x) + x is not always s).
 */
const CELL_COLUMNS = ['ts_ns', 'action', 'session_id', 'model', 'provider', 'harness', ...BUCKET_COLUMNS.map(([, col]) => col), 'reasoning_tokens', 'cost_usd'];
export const CELLS_UPDATE_OF_MIGRATION = `DROP TRIGGER IF EXISTS usage_cells_update_old;
   DROP TRIGGER IF EXISTS usage_cells_update_new;
   CREATE TRIGGER usage_cells_update_old AFTER UPDATE OF ${CELL_COLUMNS.join(', ')} ON events WHEN OLD.action = 'model.invoked' BEGIN ${TABLES.map((t) => subtract(t, 'OLD.')).join('\n')} END;
   CREATE TRIGGER usage_cells_update_new AFTER UPDATE OF ${CELL_COLUMNS.join(', ')} ON events WHEN NEW.action = 'model.invoked' BEGIN ${TABLES.map((t) => add(t, 'NEW.')).join('\n')} END;`;
