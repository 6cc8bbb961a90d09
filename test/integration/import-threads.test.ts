/**
 * `beacon import` with reading threads (src/importer/parallel-import.ts, issue 31 item 4): a store of
 * more than a few megabytes is read by threads while the importing thread alone writes the log. The
 * log must come out as the one-thread import writes it — every event, with the same record, the same
 * tallies, the same cursors — and a second import must add nothing. The month is the bench's own
 * generator (bench/month-of-use.ts), cut to ~2,400 model calls (~22 MB: each store past the threads' 4 MB threshold).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { generateMonth, type Month } from '../../bench/month-of-use';
import { runBeacon } from '../helpers/daemon';
import { tempDir } from '../helpers/paths';

const EVENTS_SQL = 'SELECT id, ts_ns, harness, method, action, session_id, tool_call_id, model, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, reasoning_tokens, record FROM events ORDER BY id';
const CURSORS_SQL = 'SELECT path, harness, dev, ino, size, mtime_ns, read_offset, resume_offset, context FROM import_cursors ORDER BY path';

function rowsOf(log: string, sql: string): unknown[] {
  const db = new Database(log, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

/** The import's per-month lines (what it added, by kind), without the lines that name threads. */
const tallies = (stdout: string) => stdout.split('\n').filter((l) => /^\s+\d{4}-\d{2}:/.test(l));

describe('beacon import with reading threads (issue 31)', () => {
  let home: string;
  let month: Month;
  let one: { log: string; stdout: string };
  let two: { log: string; stdout: string };

  before(() => {
    home = tempDir('import-threads-home-');
    month = generateMonth(home, { calls: 2400, seed: 7 });
    assert.ok(month.bytes > 2 * 4 * 1024 * 1024, `each store is past the threads' threshold (${month.bytes} bytes)`);
    const run = (threads: string) => {
      const log = join(tempDir('import-threads-log-'), 'events.db');
      const r = runBeacon(['import', 'claude-code', 'codex', '--from', home, '--log', log, '--utc'], { BEACON_IMPORT_THREADS: threads, HOME: home, TZ: 'UTC' });
      assert.equal(r.status, 0, r.stderr);
      return { log, stdout: r.stdout };
    };
    one = run('0');
    two = run('2');
  });

  it('reads with the threads asked for, and says so; one thread when asked for none', () => {
    assert.match(two.stdout, /claude-code: [\d,]+ session files under .*: read [\d,]+ bytes \(2 reading threads\)/);
    assert.match(two.stdout, /codex: [\d,]+ session files under .*: read [\d,]+ bytes \(2 reading threads\)/);
    assert.doesNotMatch(one.stdout, /reading thread/);
  });

  it('writes the log the one-thread import writes: every event with its record, the tallies, the cursors', () => {
    const a = rowsOf(one.log, EVENTS_SQL);
    const b = rowsOf(two.log, EVENTS_SQL);
    assert.ok(a.length > 4000, `${a.length} events`);
    assert.equal(b.length, a.length);
    assert.deepEqual(b, a);
    assert.deepEqual(tallies(two.stdout), tallies(one.stdout));
    assert.deepEqual(rowsOf(two.log, CURSORS_SQL), rowsOf(one.log, CURSORS_SQL));
  });

  it("holds the month's tokens, and a second import (threads or not) adds nothing", () => {
    const sums = rowsOf(two.log, "SELECT count(*) AS calls, sum(input_tokens) AS input, sum(output_tokens) AS output FROM events WHERE action = 'model.invoked'")[0] as { calls: number; input: number; output: number };
    const truth = [...month.truth.values()].reduce((t, c) => ({ calls: t.calls + c.calls, input: t.input + c.input, output: t.output + c.output }), { calls: 0, input: 0, output: 0 });
    assert.deepEqual(sums, truth);
    for (const threads of ['2', '0']) {
      const again = runBeacon(['import', 'claude-code', 'codex', '--from', home, '--log', two.log, '--utc'], { BEACON_IMPORT_THREADS: threads, HOME: home, TZ: 'UTC' });
      assert.equal(again.status, 0, again.stderr);
      assert.doesNotMatch(again.stdout, /added [1-9]/);
      assert.match(again.stdout, /unchanged since the last import/);
    }
  });

  it('refuses a BEACON_IMPORT_THREADS that is no number, before reading anything', () => {
    const r = runBeacon(['import', '--from', home, '--log', join(tempDir('import-threads-bad-'), 'events.db')], { BEACON_IMPORT_THREADS: 'many', HOME: home });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /BEACON_IMPORT_THREADS=many/);
  });
});
