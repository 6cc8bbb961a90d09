import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { runBeacon } from '../helpers/daemon';
import { ATTACKER, asOtherUser } from '../helpers/other-user';
import { tempDir } from '../helpers/paths';
import { freePort } from '../helpers/ports';

/**
 * Issue 29 (a red team with a second local user), item 5: with the collector down, another user
 * listening on its port was reported by doctor as the collector. Doctor runs as this user (root in
 * CI); the other user is uid 65534, reached with setpriv.
 */

/** A fake collector: answers /health as Beacon would, claiming to write `log`, from a process run as `prefix` makes it. */
async function fakeCollector(prefix: readonly string[], port: number, log: string): Promise<ChildProcess> {
  const code = `require('node:http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end(JSON.stringify({ status: 'ok', version: '0.1.0', log: { path: ${JSON.stringify(log)}, bytes: 0 } })); }).listen(${port}, '127.0.0.1', () => console.log('listening'));`;
  const argv = [...prefix, process.execPath, '-e', code];
  const proc = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', () => resolve());
    proc.once('exit', (c) => reject(new Error(`the fake collector exited with ${c}`)));
  });
  return proc;
}

/** The user's setup with the collector down: a log, a config naming the port. */
function victimSetup(port: number): { home: string; log: string; config: string } {
  const home = tempDir('victim-home-');
  const log = join(home, 'events.db');
  const config = join(home, 'config.json');
  writeFileSync(config, JSON.stringify({ collector: { port } }));
  return { home, log, config };
}

const collectorLine = (stdout: string) => stdout.split('\n').find((l) => / collector /.test(l)) ?? '';

describe('doctor trusts the port only when it is the user\'s collector (issue 29 item 5)', () => {
  // Fails on main: "[ ok ] collector reachable at http://127.0.0.1:P, beacon 0.1.0 (port from the config), writing <victim's log>".
  it(`the collector down, uid ${ATTACKER} listening on the configured port with a fake /health: not ok, the port belongs to another user`, async (t) => {
    const other = asOtherUser(t);
    if (!other) return;
    const port = await freePort();
    const v = victimSetup(port);
    const fake = await fakeCollector(other, port, v.log);
    try {
      const r = runBeacon(['doctor', '--log', v.log, '--config', v.config], { HOME: v.home, XDG_CONFIG_HOME: join(v.home, '.config') });
      const line = collectorLine(r.stdout);
      assert.doesNotMatch(r.stdout, /\[ ok \] collector/);
      assert.match(line, new RegExp(`\\[FAIL\\] collector +port ${port} \\(port from the config\\) belongs to another user \\(uid ${ATTACKER}, pid ${fake.pid}\\), not to your collector`));
      assert.doesNotMatch(line, /writing/, 'nothing the fake claims is repeated');
      const json = JSON.parse(runBeacon(['doctor', '--json', '--send-test', '--log', v.log, '--config', v.config], { HOME: v.home, XDG_CONFIG_HOME: join(v.home, '.config') }).stdout) as { checks: { id: string; status: string; message: string }[] };
      assert.deepEqual(json.checks.find((c) => c.id === 'send-test'), { id: 'send-test', status: 'fail', message: "nothing sent: the port is not your collector's (see the collector check)", fix: 'fix the collector check first' }, '--send-test sends the fake nothing');
    } finally {
      fake.kill();
    }
  });

  // Fails on main: the address file's pid runs, so its port was trusted, and the fake's /health read as the collector's.
  it('the address file names a running pid (its start time right) that does not hold the port: not ok, naming both', async () => {
    const port = await freePort();
    const v = victimSetup(port);
    const named = spawn('sleep', ['60'], { stdio: 'ignore' });
    const fake = await fakeCollector([], port, v.log);
    try {
      const stat = readFileSync(`/proc/${named.pid}/stat`, 'latin1');
      const started = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[19];
      writeFileSync(`${v.log}.collector-url`, `http://127.0.0.1:${port} ${named.pid} ${started}\n`, { mode: 0o600 });
      chmodSync(`${v.log}.collector-url`, 0o600);
      const r = runBeacon(['doctor', '--log', v.log, '--config', v.config], { HOME: v.home, XDG_CONFIG_HOME: join(v.home, '.config') });
      const line = collectorLine(r.stdout);
      assert.doesNotMatch(r.stdout, /\[ ok \] collector/);
      assert.match(line, new RegExp(`\\[FAIL\\] collector +.*\\.collector-url names the collector pid ${named.pid}, but port ${port} is held by another process \\(pid ${fake.pid}\\)`));
    } finally {
      fake.kill();
      named.kill();
    }
  });
});
