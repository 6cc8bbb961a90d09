/**
 * `beacon import` of the database stores (issue 31): goose's sessions.db built from its documented
 * schema (docs/goose-sessions-db.md: goose is not installable here), and hostile database files —
 * corrupt, a symlink out of the store, writable by others — each a warning and a skip. The agent's
 * files are never written, and the private copy is removed.
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { chmodSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { BEACON_BIN, tempDir } from '../helpers/paths';

/** goose 1.47.0's schema (version 16) for the three tables Beacon reads, with one session's rows. */
function gooseDb(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o755 });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(`
    CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
    INSERT INTO schema_version (version) VALUES (16);
    CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
      accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER, provider_name TEXT, model_config_json TEXT);
    CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
      content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
    CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
      created_timestamp INTEGER NOT NULL, model TEXT, input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER,
      cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0);
  `);
  const t = Math.floor(Date.now() / 1000) - 60;
  db.prepare("INSERT INTO sessions (id, working_dir, provider_name) VALUES ('20261202_1', '/home/alice/proj', 'openai')").run();
  const msg = db.prepare("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20261202_1', ?, ?, ?)");
  msg.run('user', JSON.stringify([{ type: 'text', text: 'list the missing directory' }]), t);
  msg.run('assistant', JSON.stringify([{ type: 'toolRequest', id: 'call_1', toolCall: { status: 'success', value: { name: 'developer__shell', arguments: { command: 'ls /nonexistent-dir' } } } }]), t + 1);
  msg.run('user', JSON.stringify([{ type: 'toolResponse', id: 'call_1', toolResult: { status: 'success', value: { content: [{ type: 'text', text: 'ls: cannot access' }], isError: true } } }]), t + 2);
  msg.run('assistant', JSON.stringify([{ type: 'text', text: 'It does not exist.' }]), t + 3);
  const call = db.prepare("INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, cost_source) VALUES ('20261202_1', ?, 'gpt-4.1', ?, ?, ?, ?, ?, NULL, ?)");
  call.run(t + 1, 1200, 40, 1240, 300, 50, null); // input includes the cache (goose's Usage): 850 uncached
  call.run(t + 3, 1500, 25, 1525, 1000, 20, null);
  call.run(t - 3600, 999, 9, 1008, 0, 0, 'carried_forward'); // totals from before the ledger: not a call
  db.close(); // a clean close checkpoints; the test below keeps a -wal beside it too
}

const usage = (log: string) => JSON.parse(runBeacon(['token-usage', '--log', log, '--since', '30d', '--json']).stdout).totals;

describe('beacon import: database stores', () => {
  it("goose's sessions.db (from its documented schema): each ledger row one call in disjoint buckets, the prompt and the tool call; a re-import reads nothing", () => {
    const home = tempDir('goose-db-home-');
    const tmp = tempDir('goose-db-tmp-');
    const db = join(home, '.local', 'share', 'goose', 'sessions', 'sessions.db');
    gooseDb(db);
    const log = join(tempDir('goose-db-log-'), 'events.db');
    const before = statSync(db).mtimeMs;
    const r = runBeacon(['import', 'goose', '--from', home, '--log', log], { TMPDIR: tmp });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /goose: database .*sessions\.db: read/);
    assert.match(r.stdout, /added 4 events \(1 prompt, 2 model calls, 1 tool call\)/);
    assert.match(r.stderr, /1 usage_ledger row "carried_forward"/);
    const u = usage(log);
    assert.deepEqual([u.model_calls, u.usage.input_tokens, u.usage.output_tokens, u.usage.cache_read_input_tokens, u.usage.cache_creation_input_tokens], [2, 850 + 480, 65, 1300, 70]);
    const events = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
    const tool = events.find((e) => e.gen_ai?.tool?.call?.id === 'call_1');
    assert.equal(tool.event.action, 'tool.failed');
    assert.equal(tool.command.command, 'ls /nonexistent-dir');
    assert.ok(events.every((e) => e.harness.collection_method === 'poll' && e.session.id === '20261202_1'));
    assert.deepEqual(readdirSync(tmp), [], 'the private copy is removed');
    assert.equal(statSync(db).mtimeMs, before, "the agent's database is not written");
    const again = runBeacon(['import', 'goose', '--from', home, '--log', log]);
    assert.match(again.stdout, /unchanged since the last import, not read/);
    assert.equal(jsonl(runBeacon(['events', '--log', log, '--json']).stdout).length, events.length);
  });

  it("a message appended to a large goose database: the re-import reads that session's rows, not every session's (the per-row cursor)", () => {
    const home = tempDir('goose-rows-home-');
    const db = join(home, '.local', 'share', 'goose', 'sessions', 'sessions.db');
    gooseDb(db);
    const SESSIONS = 400;
    const w = new Database(db);
    const t = Math.floor(Date.now() / 1000) - 30;
    w.transaction(() => {
      const msg = w.prepare('INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)');
      const call = w.prepare('INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens) VALUES (?, ?, ?, ?, 5, ?, 0, 0)');
      for (let i = 0; i < SESSIONS; i++) {
        const id = `20261202_s${i}`;
        w.prepare("INSERT INTO sessions (id, working_dir) VALUES (?, '/w')").run(id);
        msg.run(id, 'user', JSON.stringify([{ type: 'text', text: `task ${i}` }]), t);
        call.run(id, t + 1, 'gpt-4.1', 100 + i, 105 + i);
      }
    })();
    w.close();
    const log = join(tempDir('goose-rows-log-'), 'events.db');
    const first = runBeacon(['import', 'goose', '--from', home, '--log', log]);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`added ${4 + 2 * SESSIONS} events`));
    const a = new Database(db); // goose appending one call to one session
    a.prepare("INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens) VALUES ('20261202_s7', ?, 'gpt-4.1', 10, 2, 12, 0, 0)").run(t + 5);
    a.close();
    const started = process.hrtime.bigint();
    const again = runBeacon(['import', 'goose', '--from', home, '--log', log]);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    assert.equal(again.status, 0, again.stderr);
    // session s7's rows only: its prompt and call read again (already recorded), the new call added
    assert.match(again.stdout, /added 1 event \(1 model call\), 2 already recorded/);
    console.log(`# goose, ${SESSIONS + 1} sessions: re-import after one appended row re-read ${/(\d+) already recorded/.exec(again.stdout)![1]} recorded events in ${ms.toFixed(0)} ms`);
    assert.equal(usage(log).model_calls, 2 + SESSIONS + 1);
  });

  it('a corrupt database, one that is a symlink out of the store, one others may write: a warning each, nothing imported, exit 0', () => {
    const home = tempDir('db-hostile-home-');
    const log = join(tempDir('db-hostile-log-'), 'events.db');
    const oc = join(home, '.local', 'share', 'opencode');
    mkdirSync(oc, { recursive: true, mode: 0o755 });
    writeFileSync(join(oc, 'opencode.db'), Buffer.alloc(8192, 0x5a), { mode: 0o644 });
    const outside = join(tempDir('db-outside-'), 'sessions.db');
    gooseDb(outside);
    const goose = join(home, '.local', 'share', 'goose', 'sessions');
    mkdirSync(goose, { recursive: true });
    symlinkSync(outside, join(goose, 'sessions.db'));
    let r = runBeacon(['import', 'opencode', 'goose', '--from', home, '--log', log]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /opencode\.db: not a SQLite database Beacon can read/);
    assert.match(r.stderr, /sessions\.db: a symbolic link, not followed/);
    assert.doesNotMatch(r.stdout, /added/);

    const home2 = tempDir('db-writable-home-');
    const db2 = join(home2, '.local', 'share', 'goose', 'sessions', 'sessions.db');
    gooseDb(db2);
    chmodSync(db2, 0o666);
    r = runBeacon(['import', 'goose', '--from', home2, '--log', log]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /other users may write the file \(mode 666\)/);
    assert.doesNotMatch(r.stdout, /added/);
  });

  it('--follow reads a database again once it changed: a call goose commits shows up, nothing twice', { timeout: 30_000 }, async () => {
    const home = tempDir('goose-follow-home-');
    const db = join(home, '.local', 'share', 'goose', 'sessions', 'sessions.db');
    gooseDb(db);
    const log = join(tempDir('goose-follow-log-'), 'events.db');
    const child = spawn(process.execPath, [BEACON_BIN, 'import', 'goose', '--from', home, '--log', log, '--follow'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const until = async (re: RegExp) => {
      for (const end = Date.now() + 20_000; !re.test(out); await new Promise((r) => setTimeout(r, 100))) if (Date.now() > end) throw new Error(`no ${re} in: ${out}`);
    };
    try {
      await until(/goose: added 4 events/);
      const w = new Database(db); // goose committing one more call while Beacon follows
      w.prepare("INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens) VALUES ('20261202_1', ?, 'gpt-4.1', 10, 2, 12, 0, 0)").run(Math.floor(Date.now() / 1000));
      w.close();
      await until(/goose: added 1 event from/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
    }
    assert.equal(usage(log).model_calls, 3);
  });
});

describe('the collector with importFollow on a database store', () => {
  it("records goose's calls from its sessions.db, then a row goose commits while the collector runs, each once", { timeout: 60_000 }, async () => {
    const root = tempDir('goose-collector-root-'); // GOOSE_PATH_ROOT: the database is <root>/data/sessions/sessions.db
    const db = join(root, 'data', 'sessions', 'sessions.db');
    gooseDb(db);
    const collector = await startCollector({ env: { BEACON_IMPORT_FOLLOW: 'goose', GOOSE_PATH_ROOT: root } });
    const events = () => jsonl(runBeacon(['events', '--log', collector.log, '--json']).stdout);
    const until = async (what: string, ok: () => boolean) => {
      for (const end = Date.now() + 20_000; !ok(); await new Promise((r) => setTimeout(r, 250))) if (Date.now() > end) throw new Error(`not within 20 s: ${what}; the log holds ${events().length} events`);
    };
    try {
      await until('the database as it was at the start', () => events().length === 4);
      const w = new Database(db); // goose, still running, commits a call and its tool call
      const t = Math.floor(Date.now() / 1000);
      w.prepare("INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens) VALUES ('20261202_1', ?, 'gpt-4.1', 700, 9, 709, 200, 0)").run(t);
      const msg = w.prepare("INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES ('20261202_1', ?, ?, ?)");
      msg.run('assistant', JSON.stringify([{ type: 'toolRequest', id: 'call_2', toolCall: { status: 'success', value: { name: 'developer__shell', arguments: { command: 'echo later' } } } }]), t);
      msg.run('user', JSON.stringify([{ type: 'toolResponse', id: 'call_2', toolResult: { status: 'success', value: { content: [{ type: 'text', text: 'later' }] } } }]), t);
      w.close();
      await until('the call committed after the start', () => events().some((e) => e.gen_ai?.tool?.call?.id === 'call_2'));
      await until('its model call', () => events().filter((e) => e.event.action === 'model.invoked').length === 3);
      await new Promise((r) => setTimeout(r, 2500)); // another pass or two: nothing recorded twice
      const all = events();
      assert.equal(all.length, 6);
      assert.ok(all.every((e) => e.harness.name === 'goose' && e.harness.collection_method === 'poll'));
      assert.equal(all.find((e) => e.gen_ai?.tool?.call?.id === 'call_2').command.command, 'echo later');
      assert.equal(usage(collector.log).model_calls, 3);
      const health = (await (await fetch(`${collector.url}/health`)).json()) as { importFollow?: { agents: string[]; added: number } };
      assert.deepEqual(health.importFollow?.agents, ['goose']);
      assert.equal(health.importFollow?.added, 6);
    } finally {
      assert.equal(await collector.stop(), 0);
    }
  });
});
