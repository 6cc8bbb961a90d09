import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { traceRequest } from '../helpers/otlp-json';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const json = { 'content-type': 'application/json' };

describe('collector lifecycle', () => {
  it('creates the log 0600 in a 0700 directory and schema-stamps it', async () => {
    const dir = join(tempDir(), 'nested', 'endpoint');
    const c = await startCollector({ log: join(dir, 'events.db') });
    await c.stop();
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(c.log).mode & 0o777, 0o600);
    const db = new Database(c.log, { readonly: true });
    assert.equal(db.pragma('application_id', { simple: true }), 0x42656163);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    db.close();
  });

  it('uses ~/.beacon/endpoint/events.db by default', async () => {
    const home = tempDir('beacon-home-');
    const r = spawnSync(process.execPath, [BEACON_BIN, 'collector', '--port', '0'], { env: { ...process.env, HOME: home }, timeout: 6000, killSignal: 'SIGTERM', encoding: 'utf8' });
    const ready = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((j) => j.msg === 'collector ready');
    assert.equal(ready.log, join(home, '.beacon', 'endpoint', 'events.db'));
    assert.equal(r.status, 0, 'SIGTERM is a clean stop');
  });

  it('answers 503 + Retry-After while another writer holds the log past the busy timeout, then recovers', async () => {
    const dir = tempDir();
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ collector: { busyTimeoutMs: 200 } }));
    const c = await startCollector({ args: ['--config', cfg] });
    const holder = new Database(c.log);
    holder.exec('BEGIN IMMEDIATE');
    const body = JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: 'locked_1' }).spans));
    const r = await fetch(`${c.url}/v1/traces`, { method: 'POST', body, headers: json });
    assert.equal(r.status, 503);
    assert.equal(r.headers.get('retry-after'), '1');
    assert.equal(((await r.json()) as { code: number }).code, 14);
    holder.exec('ROLLBACK');
    holder.close();
    const again = await fetch(`${c.url}/v1/traces`, { method: 'POST', body, headers: json });
    assert.equal(again.status, 200);
    await c.stop();
    assert.equal(jsonl(runBeacon(['events', '--log', c.log, '--json', '--session', 'locked_1']).stdout).length, 4);
  });

  it('answers 429 + Retry-After when more exports wait for the log than maxPendingExports, and takes them again after', async () => {
    const dir = tempDir();
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ collector: { busyTimeoutMs: 4000, maxPendingExports: 1 } }));
    const c = await startCollector({ args: ['--config', cfg] });
    const holder = new Database(c.log);
    holder.exec('BEGIN IMMEDIATE');
    const body = (s: string) => JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: s }).spans));
    const first = fetch(`${c.url}/v1/traces`, { method: 'POST', body: body('queued_1'), headers: json });
    await new Promise((r) => setTimeout(r, 500)); // the first export now waits for the lock
    const second = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: body('refused_1'), headers: { 'content-type': 'application/x-protobuf' } });
    assert.equal(second.status, 429);
    assert.equal(second.headers.get('retry-after'), '1');
    assert.equal(second.headers.get('content-type'), 'application/x-protobuf');
    holder.exec('ROLLBACK');
    holder.close();
    assert.equal((await first).status, 200);
    const third = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: body('after_1'), headers: json });
    assert.equal(third.status, 200);
    await c.stop();
    const sessions = new Set(jsonl(runBeacon(['events', '--log', c.log, '--json']).stdout).map((e) => e.session.id));
    assert.deepEqual([...sessions].sort(), ['after_1', 'queued_1']);
  });

  it('refuses a SQLite file that is not a Beacon event log, naming it, and leaves it untouched', () => {
    const path = join(tempDir(), 'other.db');
    const db = new Database(path);
    db.exec('CREATE TABLE notes(x)');
    db.close();
    const r = spawnSync(process.execPath, [BEACON_BIN, 'collector', '--port', '0', '--log', path], { encoding: 'utf8', timeout: 5000 });
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`${path.replace(/[.]/g, '\\.')} is a SQLite database but not a Beacon event log`));
    const check = new Database(path, { readonly: true });
    assert.equal(check.pragma('application_id', { simple: true }), 0);
    check.close();
  });

  it('refuses a log written by a newer Beacon, and a file that is not SQLite', () => {
    const path = join(tempDir(), 'newer.db');
    const db = new Database(path);
    db.pragma('application_id = 1113940323');
    db.pragma('user_version = 99');
    db.close();
    const r = spawnSync(process.execPath, [BEACON_BIN, 'collector', '--port', '0', '--log', path], { encoding: 'utf8', timeout: 5000 });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /written by a newer Beacon \(event log schema 99/);
    const junk = join(tempDir(), 'junk.db');
    writeFileSync(junk, 'this is not a database, it is a text file of some length'.repeat(50));
    const r2 = spawnSync(process.execPath, [BEACON_BIN, 'events', '--log', junk], { encoding: 'utf8', timeout: 5000 });
    assert.equal(r2.status, 1);
    assert.match(r2.stderr, /not a Beacon event log/);
  });

  it('refuses a non-loopback address unless --allow-remote, and then warns', async () => {
    const r = spawnSync(process.execPath, [BEACON_BIN, 'collector', '--host', '0.0.0.0', '--port', '0', '--log', join(tempDir(), 'e.db')], { encoding: 'utf8', timeout: 5000 });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /refusing to listen on 0\.0\.0\.0.*--allow-remote/);
    const c = await startCollector({ args: ['--host', '0.0.0.0', '--allow-remote'] });
    assert.ok(c.lines.some((l) => JSON.parse(l).msg.includes('non-loopback')));
    await c.stop();
  });
});
