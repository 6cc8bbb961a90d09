import type Database from 'better-sqlite3';
import type { NormalizedEvent } from '../../model/record';

/**
 * The `events` table's columns, once: the INSERT and its binder, the row type (`EventRow`), the
 * spool's field checks (src/ingest/spool.ts) and the readers' select lists are all made from this
 * table. A new column is one entry here plus a migration in schema.ts that adds it
 * (test/unit/store-columns.test.ts compares this table with the migrated schema).
 *
 * `kind` is the column's SQLite type and nullability as JavaScript sees it: `ns` and `i64` are
 * 64-bit integers read as bigint (nanosecond times, commit numbers); `?` means NULL is allowed.
 * `from` says who supplies the value: the row (ingest, through `value`), the append (the time the
 * log received it) or SQLite itself (the commit number).
 */
export type ColumnKind = 'text' | 'text?' | 'int?' | 'real?' | 'ns' | 'ns?' | 'i64';

type ValueOf<K extends ColumnKind> = K extends 'text' ? string : K extends 'text?' ? string | null : K extends 'ns' | 'i64' ? bigint : K extends 'ns?' ? bigint | null : number | null;

/** A column whose value the row carries: `value` takes it from the normalized event (`json` is the stored record). */
type RowColumnSpec<K extends ColumnKind = ColumnKind> = K extends ColumnKind ? { field: string; column: string; kind: K; from: 'row'; value: (ev: NormalizedEvent, json: string) => ValueOf<K> } : never;
type LogColumnSpec = { field: string; column: string; kind: ColumnKind; from: 'append' | 'commit' };

/** Signed 64-bit range: SQLite INTEGER cannot hold more. */
const MAX_I64 = (1n << 63n) - 1n;

const usage = (ev: NormalizedEvent) => ev.record.gen_ai?.usage;

export const EVENT_COLUMNS = [
  { field: 'seq', column: 'seq', kind: 'i64', from: 'commit' },
  { field: 'id', column: 'id', kind: 'text', from: 'row', value: (ev) => ev.record.event.id },
  { field: 'tsNs', column: 'ts_ns', kind: 'ns', from: 'row', value: (ev) => (ev.timeUnixNano > MAX_I64 ? MAX_I64 : ev.timeUnixNano < 0n ? 0n : ev.timeUnixNano) },
  { field: 'harness', column: 'harness', kind: 'text', from: 'row', value: (ev) => ev.record.harness.name },
  { field: 'method', column: 'method', kind: 'text', from: 'row', value: (ev) => ev.record.harness.collection_method },
  { field: 'action', column: 'action', kind: 'text', from: 'row', value: (ev) => ev.record.event.action },
  { field: 'sessionId', column: 'session_id', kind: 'text?', from: 'row', value: (ev) => ev.record.session?.id ?? null },
  { field: 'traceId', column: 'trace_id', kind: 'text?', from: 'row', value: (ev) => ev.record.trace?.id || null },
  { field: 'spanId', column: 'span_id', kind: 'text?', from: 'row', value: (ev) => ev.record.trace?.span_id || null },
  { field: 'parentSpanId', column: 'parent_span_id', kind: 'text?', from: 'row', value: (ev) => ev.record.trace?.parent_span_id || null },
  { field: 'toolCallId', column: 'tool_call_id', kind: 'text?', from: 'row', value: (ev) => ev.record.gen_ai?.tool?.call?.id ?? null },
  { field: 'model', column: 'model', kind: 'text?', from: 'row', value: (ev) => ev.record.model ?? null },
  { field: 'provider', column: 'provider', kind: 'text?', from: 'row', value: (ev) => ev.record.gen_ai?.provider?.name ?? null },
  { field: 'inputTokens', column: 'input_tokens', kind: 'int?', from: 'row', value: (ev) => usage(ev)?.input_tokens ?? null },
  { field: 'outputTokens', column: 'output_tokens', kind: 'int?', from: 'row', value: (ev) => usage(ev)?.output_tokens ?? null },
  { field: 'cacheReadTokens', column: 'cache_read_tokens', kind: 'int?', from: 'row', value: (ev) => usage(ev)?.cache_read?.input_tokens ?? null },
  { field: 'cacheCreationTokens', column: 'cache_creation_tokens', kind: 'int?', from: 'row', value: (ev) => usage(ev)?.cache_creation?.input_tokens ?? null },
  { field: 'reasoningTokens', column: 'reasoning_tokens', kind: 'int?', from: 'row', value: (ev) => usage(ev)?.reasoning?.output_tokens ?? null },
  { field: 'costUsd', column: 'cost_usd', kind: 'real?', from: 'row', value: (ev) => usage(ev)?.cost_usd ?? null },
  { field: 'record', column: 'record', kind: 'text', from: 'row', value: (_ev, json) => json },
  // v3: rows stored before it keep NULL (retention judges those by event time)
  { field: 'receivedNs', column: 'received_ns', kind: 'ns?', from: 'append' },
] as const satisfies readonly (RowColumnSpec | LogColumnSpec)[];

type AnyColumn = (typeof EVENT_COLUMNS)[number];
export type RowColumn = Extract<AnyColumn, { from: 'row' }>;
/** A field name of a stored event (what a select list can ask for). */
export type EventField = AnyColumn['field'];

/** Every column as a reader sees it (with `safeIntegers` for the 64-bit ones). */
export type StoredEvent = { [C in AnyColumn as C['field']]: ValueOf<C['kind']> };
/** The columns a row carries to the store, in the INSERT's order. */
export type EventColumns = { [C in RowColumn as C['field']]: ValueOf<C['kind']> };
/** A stored event with only the `F` columns, as `selectList(F)` reads it. */
export type Selected<F extends EventField> = Pick<StoredEvent, F>;

export const ROW_COLUMNS: readonly RowColumn[] = EVENT_COLUMNS.filter((c): c is RowColumn => c.from === 'row');

const BY_FIELD = new Map<string, AnyColumn>(EVENT_COLUMNS.map((c) => [c.field, c]));

/** `seq, ts_ns AS tsNs, …`: the columns of `fields`, each named as its field, for a SELECT. */
export function selectList(fields: readonly EventField[]): string {
  return fields.map((f) => {
    const c = BY_FIELD.get(f);
    if (!c) throw new Error(`no column for the field ${f}`);
    return c.column === c.field ? c.column : `${c.column} AS ${c.field}`;
  }).join(', ');
}

/**
 * The one INSERT: the row's columns in table order, then the time the append received them.
 * INSERT OR IGNORE makes a retried export or a replayed hook a no-op (the id is UNIQUE).
 */
export const INSERT_EVENT_SQL = `INSERT OR IGNORE INTO events (${[...ROW_COLUMNS.map((c) => c.column), 'received_ns'].join(', ')})
  VALUES (${[...ROW_COLUMNS, 0].map(() => '?').join(', ')})`;

/**
 * Straight-line code made from the table, for the two per-row paths (ingest's `toRow`, the
 * writer's INSERT): a loop over the table there costs 0.3–0.6 µs a row (a call site and a keyed
 * load serving twenty columns cannot be specialized), the generated code what the hand-written
 * lists it replaces cost. Only the table's own field names are written into it, checked here.
 */
function compile<F>(params: readonly string[], body: string, ...bound: unknown[]): F {
  return new Function(...params, body)(...bound) as F;
}
for (const c of EVENT_COLUMNS) {
  if (!/^[a-z][A-Za-z]*$/.test(c.field) || !/^[a-z_]+$/.test(c.column)) throw new Error(`bad column name in the event table: ${c.field} / ${c.column}`);
}

/** Runs the INSERT for one row: its columns as positional parameters (no per-row object, no name lookups in SQLite). */
export const runInsert = compile<(insert: Database.Statement, row: EventColumns, receivedNs: bigint) => Database.RunResult>(
  [],
  `return function runInsert(insert, row, receivedNs) { return insert.run(${ROW_COLUMNS.map((c) => `row.${c.field}`).join(', ')}, receivedNs); };`,
);

/** The row's columns of a normalized event whose record serializes to `json` (each column's `value`). */
export const rowColumnsOf = compile<(ev: NormalizedEvent, json: string) => EventColumns>(
  ROW_COLUMNS.map((_, i) => `value${i}`),
  `return function rowColumnsOf(ev, json) { return { ${ROW_COLUMNS.map((c, i) => `${c.field}: value${i}(ev, json)`).join(', ')} }; };`,
  ...ROW_COLUMNS.map((c) => c.value),
);
