import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BadSegment, readSegment, spoolDir } from '../../src/ingest/spool';
import { EVENT_COLUMNS, INSERT_EVENT_SQL, ROW_COLUMNS, selectList, type ColumnKind, type EventField } from '../../src/store/log/columns';
import { EventLog } from '../../src/store/log/event-log';
import { toRow, type EventRow } from '../../src/store/log/row';
import { tempDir } from '../helpers/paths';

/** How `PRAGMA table_info` shows each kind of column. */
const SQLITE: Record<ColumnKind, { type: string; notNull: boolean }> = {
  text: { type: 'TEXT', notNull: true },
  'text?': { type: 'TEXT', notNull: false },
  'int?': { type: 'INTEGER', notNull: false },
  'real?': { type: 'REAL', notNull: false },
  ns: { type: 'INTEGER', notNull: true },
  'ns?': { type: 'INTEGER', notNull: false },
  i64: { type: 'INTEGER', notNull: false },
};

/** A row whose every column holds a value no other column holds, so a binding to the wrong column shows. */
function distinctRow(): EventRow {
  const row: Record<string, unknown> = { dropIfChatChildStored: false };
  ROW_COLUMNS.forEach((c, i) => {
    row[c.field] = c.kind === 'ns' ? 1_000_000_000_000n + BigInt(i) : c.kind === 'int?' ? 100 + i : c.kind === 'real?' ? i + 0.5 : c.field === 'record' ? '{"x":1}' : `${c.field}-${i}`;
  });
  return row as unknown as EventRow;
}

describe('the event table (one column table)', () => {
  it('is the schema a new log gets (DDL and migrations): names, order, types, nullability', () => {
    const log = EventLog.open(join(tempDir(), 'e.db'));
    const info = log.db.prepare('PRAGMA table_info(events)').all() as { name: string; type: string; notnull: number; pk: number }[];
    log.close();
    assert.deepEqual(info.map((c) => c.name), EVENT_COLUMNS.map((c) => c.column), 'a column in the table needs a migration, and a migrated column an entry in the table');
    for (const c of EVENT_COLUMNS) {
      const got = info.find((i) => i.name === c.column)!;
      assert.equal(got.type, SQLITE[c.kind].type, c.column);
      if (got.pk === 0) assert.equal(got.notnull === 1, SQLITE[c.kind].notNull, c.column);
    }
  });

  it('makes the INSERT (every row column in table order, then received_ns) and binds each field to its own column', () => {
    const [, columns, values] = /^INSERT OR IGNORE INTO events \(([^)]*)\)\s*VALUES \(([^)]*)\)$/.exec(INSERT_EVENT_SQL)!;
    assert.deepEqual(columns!.split(', '), [...ROW_COLUMNS.map((c) => c.column), 'received_ns']);
    assert.equal(values!.split(', ').length, ROW_COLUMNS.length + 1);

    const log = EventLog.open(join(tempDir(), 'e.db'), { clock: () => 42n });
    const row = distinctRow();
    assert.deepEqual(log.append([row]), { inserted: 1, duplicates: 0, dropped: 0 });
    const stored = log.db.prepare('SELECT * FROM events').safeIntegers(true).get() as Record<string, unknown>;
    log.close();
    for (const c of ROW_COLUMNS) {
      const want = row[c.field];
      assert.deepEqual(typeof want === 'number' && Number.isInteger(want) ? Number(stored[c.column]) : stored[c.column], want, c.column);
    }
    assert.equal(stored.received_ns, 42n);
  });

  it('makes the row (toRow fills exactly the row columns, each from its value)', () => {
    const json = '{"event":{}}';
    const ev = {
      timeUnixNano: 7n,
      record: { event: { id: 'e1', action: 'model.invoked' }, harness: { name: 'goose', collection_method: 'otlp' }, model: 'm', gen_ai: { usage: { input_tokens: 3 } } },
    } as unknown as Parameters<typeof toRow>[0];
    const row = toRow(ev, json);
    assert.deepEqual(Object.keys(row).sort(), [...ROW_COLUMNS.map((c) => c.field), 'dropIfChatChildStored'].sort());
    for (const c of ROW_COLUMNS) assert.deepEqual(row[c.field], c.value(ev, json), c.field);
    assert.equal(row.tsNs, 7n);
    assert.equal(row.record, json);
  });

  it('makes the spool\'s checks: each row column is required with its kind', () => {
    const logPath = join(tempDir(), 'events.db');
    mkdirSync(spoolDir(logPath), { recursive: true });
    const good = JSON.parse(JSON.stringify(distinctRow(), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown>;
    const segment = (o: Record<string, unknown>, n: number) => {
      const p = join(spoolDir(logPath), `${n}-1-abc.rows`);
      writeFileSync(p, `${JSON.stringify(o)}\n`);
      return p;
    };
    assert.deepEqual(readSegment(segment(good, 0)), [distinctRow()]);
    ROW_COLUMNS.forEach((c, i) => {
      const { [c.field]: _dropped, ...missing } = good;
      assert.throws(() => readSegment(segment(missing, 2 * i + 1)), (e) => e instanceof BadSegment && e.message.includes(`${c.field} is not`), `${c.field} missing`);
      assert.throws(() => readSegment(segment({ ...good, [c.field]: { wrong: true } }, 2 * i + 2)), BadSegment, `${c.field} of the wrong kind`);
    });
  });

  it('makes the select lists: each field read under its own name from its column', () => {
    assert.equal(selectList(['seq', 'tsNs', 'sessionId', 'record']), 'seq, ts_ns AS tsNs, session_id AS sessionId, record');
    const log = EventLog.open(join(tempDir(), 'e.db'));
    log.append([distinctRow()]);
    const all = EVENT_COLUMNS.map((c) => c.field) as EventField[];
    const got = log.db.prepare(`SELECT ${selectList(all)} FROM events`).get() as Record<string, unknown>;
    log.close();
    assert.deepEqual(Object.keys(got), all);
  });
});
