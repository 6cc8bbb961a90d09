import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { jsonl, startCollector } from '../helpers/daemon';
import { beaconIn, fakeHome, type Home } from '../helpers/fake-home';
import { BEACON_BIN, tempDir } from '../helpers/paths';
import { EventLog } from '../../src/store/log/event-log';
import { LOG_COUNT_SQL, NEWEST_OF_METHOD_SQL, RECENT_ACTIVITY_SQL, logChecks } from '../../src/setup/doctor';
import { beaconRows } from '../helpers/beacon-rows';

const beacon = beaconIn;

/** For tests that serve HTTP from this process: spawnSync would block the server doctor talks to. */
function beaconAsync(h: Home, args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BEACON_BIN, ...args], { env: h.env, cwd: h.cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.on('close', (status) => resolve({ status, stdout }));
  });
}

const checks = (stdout: string) => JSON.parse(stdout).checks as { id: string; status: string; message: string; fix?: string }[];
const check = (stdout: string, id: string) => checks(stdout).find((c) => c.id === id)!;
const gooseYaml = (h: Home) => join(h.home, '.config', 'goose', 'config.yaml');

function writeGooseYaml(h: Home, text: string) {
  mkdirSync(join(gooseYaml(h), '..'), { recursive: true });
  writeFileSync(gooseYaml(h), text);
}

/** An HTTP server answering /health as the contract says, for a collector whose log is elsewhere. */
async function fakeHealth(body: object): Promise<{ port: number; close(): void }> {
  const server = createServer((_, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

describe('beacon doctor tells the truth', () => {
  it('a hook launcher whose Node.js is gone fails plugin-command (it is run, not just stat-ed)', () => {
    const h = fakeHome();
    assert.equal(beacon(h, ['install', 'goose']).status, 0);
    const launcher = join(h.home, '.beacon', 'endpoint', 'bin', 'beacon-hooks');
    const ok = beacon(h, ['doctor', '--json']);
    assert.equal(check(ok.stdout, 'plugin-command').status, 'ok', ok.stdout);
    assert.match(check(ok.stdout, 'plugin-command').message, /answers \(beacon-hooks \d/);
    writeFileSync(launcher, readFileSync(launcher, 'utf8').replace(process.execPath, '/opt/removed/node'));
    const broken = beacon(h, ['doctor', '--json']);
    assert.equal(broken.status, 1);
    const c = check(broken.stdout, 'plugin-command');
    assert.equal(c.status, 'fail');
    assert.match(c.message, /cannot start its hook adapter/);
    assert.match(c.fix!, /beacon install goose/);
  });

  // Issue 25: the launcher probe (a Node.js start) ran after the /health read; now beside it. Both
  // take 1.2 s here and each says when it ran: their intervals overlap only if they run side by side
  // (an order, not a stopwatch: a loaded machine stretches both alike).
  it('the hook launcher probe runs beside the /health read, not after it', async (t) => {
    const h = fakeHome();
    assert.equal(beacon(h, ['install', 'goose']).status, 0);
    const launcher = join(h.home, '.beacon', 'endpoint', 'bin', 'beacon-hooks');
    const marks = join(h.home, 'probe-marks');
    writeFileSync(launcher, `#!/bin/sh\necho "start $(date +%s%N)" >> '${marks}'\nsleep 1.2\necho "end $(date +%s%N)" >> '${marks}'\necho "beacon-hooks 0.1.0"\n`, { mode: 0o755 });
    const health: { at?: number; done?: number } = {};
    const slow = createServer((_, res) => {
      health.at = Date.now();
      setTimeout(() => {
        health.done = Date.now();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', version: '0.1.0' }));
      }, 1200);
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    t.after(() => slow.close());
    const r = await beaconAsync(h, ['doctor', '--json', '--port', String((slow.address() as AddressInfo).port)]);
    assert.equal(check(r.stdout, 'collector').status, 'ok', r.stdout);
    assert.equal(check(r.stdout, 'plugin-command').status, 'ok', r.stdout);
    const ms = (word: string) => readFileSync(marks, 'utf8').split('\n').filter((l) => l.startsWith(`${word} `)).map((l) => Number(l.slice(word.length + 1)) / 1e6);
    const [start, end] = [Math.min(...ms('start')), Math.max(...ms('end'))];
    assert.ok(health.at !== undefined && health.done !== undefined, 'doctor read /health');
    assert.ok(start < health.done! && health.at! < end, `the probe ran ${start.toFixed(0)}–${end.toFixed(0)}, /health ${health.at}–${health.done}: one after the other`);
  });

  it('a collector writing another log than doctor reads fails, naming both', async (t) => {
    const h = fakeHome();
    const other = await fakeHealth({ status: 'ok', version: '0.1.0', pid: 1, log: { path: '/somewhere/else/events.db', bytes: 0 } });
    t.after(() => other.close());
    const r = await beaconAsync(h, ['doctor', '--json', '--port', String(other.port)]);
    const c = check(r.stdout, 'collector');
    assert.equal(c.status, 'fail', r.stdout);
    assert.match(c.message, /writes \/somewhere\/else\/events\.db, but .* use .*\.beacon\/endpoint\/events\.db/);
    // the same log, spelled differently, is the same log
    const same = await fakeHealth({ status: 'ok', version: '0.1.0', log: { path: `${h.home}/.beacon/endpoint/../endpoint/events.db` } });
    t.after(() => same.close());
    assert.equal(check((await beaconAsync(h, ['doctor', '--json', '--port', String(same.port)])).stdout, 'collector').status, 'ok');
    // a real collector on the same log passes
    const c2 = await startCollector({ log: join(h.home, '.beacon', 'endpoint', 'events.db'), env: { HOME: h.home } });
    t.after(() => c2.stop());
    assert.equal(check(beacon(h, ['doctor', '--json', '--port', String(c2.port)]).stdout, 'collector').status, 'ok');
  });

  it('after beacon service install --port N, doctor and install goose use N; the service state is reported', async () => {
    const h = fakeHome();
    assert.equal(beacon(h, ['service', 'install', '--kind', 'systemd', '--port', '14318']).status, 0);
    const d = beacon(h, ['doctor', '--json']);
    assert.match(check(d.stdout, 'collector').message, /127\.0\.0\.1:14318 \(port from the installed service/);
    const svc = check(d.stdout, 'service');
    assert.match(svc.message, /systemd: installed at .*beacon-collector\.service/);
    const i = beacon(h, ['install', 'goose']);
    assert.match(i.stdout, /otel_exporter_otlp_endpoint: http:\/\/127\.0\.0\.1:14318/);
    assert.match(beacon(h, ['service', 'status', '--kind', 'systemd']).stdout, /port 14318/);
    const u = beacon(h, ['service', 'uninstall', '--kind', 'systemd']);
    assert.match(u.stdout, /systemctl --user disable --now beacon-collector\.service/, 'the disable command it could not run');
  });

  it('localhost gets the same warning, with the reason, in config.yaml and in the environment', () => {
    const h = fakeHome();
    writeGooseYaml(h, 'otel_exporter_otlp_endpoint: http://localhost:4318\n');
    const r = beacon(h, ['doctor', '--json', '--port', '4318'], { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' });
    const cfg = check(r.stdout, 'goose-config');
    const env = check(r.stdout, 'env-endpoint');
    assert.deepEqual([cfg.status, env.status], ['warn', 'warn']);
    for (const c of [cfg, env]) assert.match(c.message, /127\.0\.0\.1 only .* ::1/);
  });

  it('without a systemd user session, service install fails and says what to do instead', { skip: spawnSync('systemctl', ['--user', 'show-environment']).status === 0 && 'this machine has a systemd user session' }, () => {
    const h = fakeHome({ BEACON_SERVICE_NO_ACTIVATE: '' });
    const r = beacon(h, ['service', 'install', '--kind', 'systemd']);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /no systemd user session here/);
    assert.match(r.stderr, /beacon collector/);
    const d = beacon(h, ['doctor', '--json', '--port', '1']);
    assert.match(check(d.stdout, 'collector').fix!, /beacon collector --detach \(there is no systemd user session/);
  });
});

describe('beacon doctor reads the log by its indexes (issues 25, 33)', () => {
  it('the collection check neither scans the table nor sorts: the time index (a range, then newest-first before it), the count from a covering index', () => {
    const path = join(tempDir('doctor-plan-'), 'events.db');
    EventLog.open(path).close();
    const log = EventLog.open(path, { readonly: true });
    try {
      const args: [string, unknown[]][] = [[RECENT_ACTIVITY_SQL, ['hook.failed', 'hook.failed', 0n]], [NEWEST_OF_METHOD_SQL, [0n, 'otlp']], [LOG_COUNT_SQL, []]];
      for (const [sql, params] of args) {
        const plan = (log.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join('; ');
        assert.match(plan, /USING (COVERING )?INDEX/, `${sql}: ${plan}`);
        assert.doesNotMatch(plan, /TEMP B-TREE/, `${sql}: ${plan}`);
      }
    } finally {
      log.close();
    }
  });

  it('one walk of the last 24 h: the newest of each path inside or before it, the hook failures inside it only (issue 33)', () => {
    const path = join(tempDir('doctor-walk-'), 'events.db');
    const now = BigInt(Date.now()) * 1_000_000n;
    const hour = 3_600_000_000_000n;
    const rows = (prefix: string, method: 'otlp' | 'hook', action: string, ...ts: bigint[]) =>
      beaconRows(ts.length, prefix, (i) => ts[i]!).map((r) => ({ ...r, method, action }));
    const log = EventLog.open(path);
    // hooks only before the window (30 h and 50 h ago), OTLP inside it and one ahead of the clock
    log.append([
      ...rows('hook', 'hook', 'command.executed', now - 30n * hour, now - 50n * hour),
      ...rows('otlp', 'otlp', 'model.invoked', now - 2n * hour, now + hour),
      ...rows('old-failure', 'hook', 'hook.failed', now - 40n * hour),
      ...rows('failure', 'otlp', 'hook.failed', now - 3n * hour, now - 5n * hour),
    ]);
    log.close();
    const iso = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString();
    const byId = new Map(logChecks(path).map((c) => [c.id, c]));
    assert.equal(byId.get('collection')!.message, `last otlp event ${iso(now + hour)}; last hook event ${iso(now - 30n * hour)} (7 events in the log)`);
    assert.match(byId.get('hook-failures')!.message, new RegExp(`^your hooks failed 2 times in the last 24 h, last ${iso(now - 3n * hour).replace(/\./g, '\\.')}:`));
  });
});

describe('beacon doctor --send-test', () => {
  it('sends a span through the collector and a payload through the installed hook, and finds both in the log', async (t) => {
    const h = fakeHome();
    const log = join(h.home, '.beacon', 'endpoint', 'events.db');
    const c = await startCollector({ log, env: { HOME: h.home } });
    t.after(() => c.stop());
    assert.equal(beacon(h, ['install', 'goose']).status, 0);
    const r = beacon(h, ['doctor', '--send-test', '--json', '--port', String(c.port)]);
    const byId = (id: string) => checks(r.stdout).filter((x) => x.id === id).map((x) => x.status);
    assert.deepEqual([byId('send-test-otlp'), byId('send-test-hook')], [['ok'], ['ok']], r.stdout);
    const session = /--session (beacon-doctor-test-\S+)/.exec(check(r.stdout, 'send-test').message)![1]!;
    const events = beacon(h, ['events', '--session', session, '--json']).stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(events.map((e) => e.harness.collection_method).sort(), ['hook', 'hook', 'otlp'], 'the pre-tool test call and its post-tool finish');
    // issue 24 item 7: it names the launcher (not "set", the sourced command line's first word) and
    // leaves no unfinished call behind
    const hook = check(r.stdout, 'send-test-hook');
    assert.match(hook.message, /through \/\S+beacon-hooks\S*$/, hook.message);
    assert.doesNotMatch(beacon(h, ['events', '--session', session]).stdout, /unfinished/);
    // issue 33: the test's records stay out of the reports (beacon events above still has them)
    const listed = jsonl(beacon(h, ['sessions', '--json']).stdout).find((x) => x.id === session);
    assert.equal(listed, undefined, 'the test session is not among the sessions');

    // a collector writing another log: the span is accepted, and doctor says it did not land here
    const other = await startCollector({ env: { HOME: h.home } });
    t.after(() => other.stop());
    const split = beacon(h, ['doctor', '--send-test', '--json', '--port', String(other.port)]);
    assert.equal(split.status, 1);
    assert.ok(checks(split.stdout).some((x) => x.id === 'send-test-otlp' && x.status === 'fail' && /not in .*events\.db/.test(x.message)), split.stdout);
  });
});

describe('beacon uninstall goose undoes beacon install goose', () => {
  it('removes the hooks, the launcher, the directories it made, and the OTLP keys it set: the home is as before', () => {
    const h = fakeHome();
    const original = '# mine\nGOOSE_MODEL: x\n';
    writeGooseYaml(h, original);
    const before = readdirSync(h.home).sort();
    assert.equal(beacon(h, ['install', 'goose', '--configure-otlp']).status, 0);
    assert.notEqual(readFileSync(gooseYaml(h), 'utf8'), original);
    const r = beacon(h, ['uninstall', 'goose']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(readFileSync(gooseYaml(h), 'utf8'), original, 'config.yaml back to what it was');
    assert.match(r.stdout, /removed the hook launcher/);
    assert.ok(!existsSync(join(h.home, '.beacon', 'endpoint', 'bin')));
    assert.ok(!existsSync(join(h.home, '.agents')), 'the .agents tree install made is gone');
    // the backup install took stays (it is the user's old file); nothing else is left behind
    assert.deepEqual(readdirSync(h.home).filter((n) => n !== '.beacon').sort(), before.filter((n) => n !== '.beacon'));
  });

  it('an OTLP value changed since install is kept and named; a replaced value is restored', () => {
    const h = fakeHome();
    writeGooseYaml(h, 'otel_exporter_otlp_endpoint: http://127.0.0.1:4317\n');
    beacon(h, ['install', 'goose', '--configure-otlp']);
    let r = beacon(h, ['uninstall', 'goose']);
    assert.equal(readFileSync(gooseYaml(h), 'utf8'), 'otel_exporter_otlp_endpoint: http://127.0.0.1:4317\n', r.stdout);
    beacon(h, ['install', 'goose', '--configure-otlp']);
    writeFileSync(gooseYaml(h), readFileSync(gooseYaml(h), 'utf8').replace('127.0.0.1:4318', 'collector.corp:4318'));
    r = beacon(h, ['uninstall', 'goose']);
    assert.match(r.stdout, /kept otel_exporter_otlp_endpoint .*changed since/);
    assert.match(readFileSync(gooseYaml(h), 'utf8'), /collector\.corp:4318/);
    assert.doesNotMatch(readFileSync(gooseYaml(h), 'utf8'), /otel_exporter_otlp_timeout/, 'the unchanged key it added is removed');
  });

  it('the launcher stays while another scope still uses it', () => {
    const h = fakeHome();
    beacon(h, ['install', 'goose']);
    beacon(h, ['install', 'goose', '--scope', 'project']);
    const r = beacon(h, ['uninstall', 'goose', '--scope', 'project']);
    assert.match(r.stdout, /kept the hook launcher/);
    assert.ok(existsSync(join(h.home, '.beacon', 'endpoint', 'bin', 'beacon-hooks')));
    assert.match(beacon(h, ['uninstall', 'goose']).stdout, /removed the hook launcher/);
  });
});
