import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pino from 'pino';
import { startCollectorService } from '../../src/collector/service';
import { resolveCollectorConfig } from '../../src/config/config';
import { spoolDir } from '../../src/ingest/spool';
import { jsonl, runBeacon } from '../helpers/daemon';
import { runHookAsync, runHookSync } from '../helpers/hooks';
import { BEACON_BIN, tempDir } from '../helpers/paths';

/** A log whose write lock another connection holds, as a long maintenance step or a stuck writer would. */
function lockedLog() {
  const log = join(tempDir('spool-'), 'events.db');
  runHookSync(log, 'session-start', { event: 'SessionStart', session_id: 'spool' }); // creates the log
  const holder = new Database(log);
  holder.exec('BEGIN IMMEDIATE');
  return { log, release: () => (holder.exec('ROLLBACK'), holder.close()) };
}

const segments = (log: string) => {
  try {
    return readdirSync(spoolDir(log)).filter((n) => n.endsWith('.rows'));
  } catch {
    return [];
  }
};
const callIds = (log: string) => {
  const db = new Database(log, { readonly: true });
  const rows = db.prepare("SELECT tool_call_id AS id, count(*) AS n FROM events WHERE tool_call_id IS NOT NULL GROUP BY tool_call_id ORDER BY tool_call_id").all() as { id: string; n: number }[];
  db.close();
  return rows;
};
const pre = (id: string) => ({ event: 'PreToolUse', session_id: 'spool', tool_call_id: id, tool_name: 'shell', tool_input: { command: `echo ${id}` } });

describe('writers outside the daemon never drop silently: the spool', () => {
  it('a hook that cannot get the lock in its budget answers at once and spools; the next writer commits it, once', async () => {
    const { log, release } = lockedLog();
    const started = Date.now();
    const r = await runHookAsync(log, 'pre-tool', pre('locked_1'));
    const ms = Date.now() - started;
    assert.deepEqual([r.status, r.stdout, r.stderr], [0, '{"decision":"allow"}', '']);
    assert.ok(ms < 2500, `the hook answered after ${ms} ms (its lock budget is 500 ms; goose waits meanwhile)`);
    assert.equal(segments(log).length, 1);
    assert.equal(statSync(join(spoolDir(log), segments(log)[0]!)).mode & 0o777, 0o600);
    assert.equal(statSync(spoolDir(log)).mode & 0o777, 0o700);
    // still locked: a second hook spools too, in its own segment
    await runHookAsync(log, 'pre-tool', pre('locked_2'));
    assert.equal(segments(log).length, 2);
    release();

    const next = runHookSync(log, 'pre-tool', pre('free_3'));
    assert.equal(next.stderr, '');
    assert.deepEqual(callIds(log), [{ id: 'free_3', n: 1 }, { id: 'locked_1', n: 1 }, { id: 'locked_2', n: 1 }]);
    assert.deepEqual(segments(log), [], 'committed segments are removed');
  });

  it('a spool file that is not ours is set aside (.bad), never retried, and costs the good segments nothing', async () => {
    const { log, release } = lockedLog();
    await runHookAsync(log, 'pre-tool', pre('good_1'));
    release();
    mkdirSync(spoolDir(log), { recursive: true });
    writeFileSync(join(spoolDir(log), '1-1-abc.rows'), '{"id": 1}\nnot json\n'); // sorts first
    writeFileSync(join(spoolDir(log), '2-1-abd.rows'), `${JSON.stringify({ id: 'x', tsNs: '99999999999999999999999' })}\n`);
    const r = runHookSync(log, 'pre-tool', pre('good_2'));
    assert.deepEqual([r.status, r.stderr], [0, '']);
    assert.deepEqual(callIds(log), [{ id: 'good_1', n: 1 }, { id: 'good_2', n: 1 }]);
    assert.deepEqual(readdirSync(spoolDir(log)).sort(), ['1-1-abc.rows.bad', '2-1-abd.rows.bad']);
  });

  it('the collector ingests the spool through its writer; a segment replayed after its commit adds nothing', async () => {
    const { log, release } = lockedLog();
    await runHookAsync(log, 'pre-tool', pre('for_collector'));
    const [segment] = segments(log);
    const copy = join(tempDir(), 'replay.rows');
    copyFileSync(join(spoolDir(log), segment!), copy);
    release();

    const service = await startCollectorService(resolveCollectorConfig({ flags: { port: 0, log } }, {}), pino({ level: 'silent' }));
    try {
      const until = async (pred: () => boolean) => {
        for (let i = 0; i < 100 && !pred(); i++) await new Promise((r) => setTimeout(r, 50));
        assert.ok(pred());
      };
      await until(() => segments(log).length === 0);
      assert.deepEqual(callIds(log), [{ id: 'for_collector', n: 1 }]);
      copyFileSync(copy, join(spoolDir(log), segment!)); // a crash between commit and unlink leaves it so
      await until(() => segments(log).length === 0);
      assert.deepEqual(callIds(log), [{ id: 'for_collector', n: 1 }]);
    } finally {
      await service.stop();
    }
  });

  it('the stream adapter spools while the log is locked: --tee keeps flowing, exit 0, every event lands once', async () => {
    const { log, release } = lockedLog();
    const lines = Array.from({ length: 30 }, (_, i) => [
      JSON.stringify({ type: 'message', message: { id: `a${i}`, role: 'assistant', created: 1787301001 + i, content: [{ type: 'toolRequest', id: `s${String(i).padStart(2, '0')}`, toolCall: { status: 'success', value: { name: 'shell', arguments: { command: `make ${i}` } } } }], metadata: {} } }),
      JSON.stringify({ type: 'message', message: { id: `u${i}`, role: 'user', created: 1787301001 + i, content: [{ type: 'toolResponse', id: `s${String(i).padStart(2, '0')}`, toolResult: { status: 'success', value: { content: [], isError: false } } }], metadata: {} } }),
    ]).flat();
    const child = spawn('sh', ['-c', `"${process.execPath}" "${BEACON_BIN}" stream goose --tee --session st --log '${log}'`], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exit = new Promise((r) => child.on('close', r));
    child.stdin.end(lines.join('\n') + '\n');
    assert.equal(await exit, 0, err);
    assert.equal(out, lines.join('\n') + '\n');
    assert.ok(segments(log).length >= 1, 'rows were spooled, not dropped');
    release();
    runHookSync(log, 'pre-tool', pre('after_stream')); // the next writer
    const ids = callIds(log).filter((r) => r.id.startsWith('s'));
    assert.equal(ids.length, 30);
    assert.ok(ids.every((r) => r.n === 1));
    assert.deepEqual(segments(log), []);
    assert.equal(jsonl(runBeacon(['events', '--log', log, '--json', '--session', 'st']).stdout).length, 30);
  });
});
