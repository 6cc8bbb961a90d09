import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { beaconIn, fakeHome, type Home } from '../helpers/fake-home';
import { BEACON_BIN, tempDir } from '../helpers/paths';

// beacon doctor starts its slow probes (the hook launcher, systemctl, /health) side by side and
// reads files while they run (issue 25); the report's order is the one a user fixes things in.
const ORDER = ['collector', 'service', 'forward', 'goose', 'goose-config', 'environment', 'content-capture', 'plugin', 'plugin-enabled', 'plugin-command', 'event-log', 'collection', 'hook-failures'];

/** A home with goose's plugin installed, its launcher replaced by one that notes when it runs and answers after `delayS`. */
function homeWithSlowLauncher(delayS: number): { h: Home; trace: string; log: string } {
  const bin = tempDir('doctor-bin-');
  const trace = join(bin, 'trace');
  // a systemctl that answers as a user session would, and notes each question
  writeFileSync(join(bin, 'systemctl'), `#!/bin/sh\necho "systemctl $2" >> '${trace}'\ncase $2 in show-environment) echo HOME=/x ;; is-enabled) echo enabled ;; is-active) echo active ;; esac\n`, { mode: 0o755 });
  const h = fakeHome({ PATH: `${bin}:${process.env.PATH}`, BEACON_SERVICE_NO_ACTIVATE: '' });
  const log = join(h.home, '.beacon', 'endpoint', 'events.db');
  const installed = beaconIn(h, ['install', 'goose', '--configure-otlp', '--log', log]);
  assert.equal(installed.status, 0, installed.stderr);
  const launcher = join(h.home, '.beacon', 'endpoint', 'bin', 'beacon-hooks');
  assert.match(readFileSync(join(h.home, '.agents', 'plugins', 'beacon-endpoint', 'hooks', 'hooks.json'), 'utf8'), new RegExp(launcher.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')));
  writeFileSync(launcher, `#!/bin/sh\necho launcher-start >> '${trace}'\nsleep ${delayS}\necho launcher-end >> '${trace}'\necho 'beacon-hooks 0.0.0-test'\n`, { mode: 0o755 });
  return { h, trace, log };
}

const ids = (stdout: string) => (JSON.parse(stdout) as { checks: { id: string }[] }).checks.map((c) => c.id);
const inOrder = (got: string[]) => ORDER.filter((id) => got.includes(id));

describe('beacon doctor: probes side by side, one report order', () => {
  it('asks the service manager while the hook launcher runs, and reports in the fixed order', () => {
    const { h, trace, log } = homeWithSlowLauncher(1);
    const r = beaconIn(h, ['doctor', '--json', '--log', log, '--port', '1']);
    assert.equal(r.status, 1, r.stderr); // no collector on port 1
    const steps = readFileSync(trace, 'utf8').trim().split('\n');
    // before: systemctl was run (and waited for) before the launcher started
    assert.equal(steps[0], 'launcher-start', steps.join(', '));
    assert.ok(steps.indexOf('systemctl show-environment') < steps.indexOf('launcher-end'), `systemctl asked while the launcher ran: ${steps.join(', ')}`);
    assert.deepEqual(steps.filter((s) => s.startsWith('systemctl')).sort(), ['systemctl is-active', 'systemctl is-enabled', 'systemctl show-environment']);
    const got = ids(r.stdout);
    assert.deepEqual(got, inOrder(got));
    assert.deepEqual(got.slice(0, 2), ['collector', 'service']);
    assert.ok(got.includes('plugin-command') && got.includes('event-log'), got.join(', '));
  });

  it('starts the launcher before it loads its checks\' modules, and reports that run where it always did (issue 33)', () => {
    const { h, log } = homeWithSlowLauncher(0);
    // a preload that notes, in this process's order, the launcher's spawn and the loading of doctor's modules
    const dir = tempDir('doctor-order-');
    const steps = join(dir, 'steps');
    const preload = join(dir, 'preload.js');
    writeFileSync(preload, `const fs = require('fs'), cp = require('child_process'), M = require('module');
const note = (s) => fs.appendFileSync(${JSON.stringify(steps)}, s + '\\n');
const spawn = cp.spawn;
cp.spawn = function (cmd, args, ...rest) { if (cmd === 'sh' && String(args && args[1]).startsWith('set -- --version;')) note('launcher'); return spawn.call(this, cmd, args, ...rest); };
const load = M._load;
M._load = function (request) { const m = /(commands\\/doctor|goose-doctor)$/.exec(request); if (m) note(m[1]); return load.apply(this, arguments); };
`);
    const args = ['doctor', '--json', '--log', log, '--port', '1'];
    const r = beaconIn(h, args, { NODE_OPTIONS: `--require ${preload}` });
    assert.equal(r.status, 1, r.stderr);
    const order = readFileSync(steps, 'utf8').trim().split('\n');
    assert.deepEqual(order, ['launcher', 'commands/doctor', 'goose-doctor'], 'one launcher run, started first');
    const got = ids(r.stdout);
    assert.deepEqual(got, inOrder(got));
    assert.match(r.stdout, /"id":"plugin-command","status":"ok","message":"\d+ hook commands run [^"]+, which answers \(beacon-hooks 0\.0\.0-test\)"/);
    // named, goose's doctor takes the early run too
    writeFileSync(steps, '');
    const named = beaconIn(h, ['doctor', 'goose', '--json', '--log', log, '--port', '1'], { NODE_OPTIONS: `--require ${preload}` });
    assert.equal(named.status, 1, named.stderr);
    assert.deepEqual(readFileSync(steps, 'utf8').trim().split('\n'), ['launcher', 'commands/doctor', 'goose-doctor']);
  });

  it('keeps that order when the collector answers after the launcher', async () => {
    const { h, log } = homeWithSlowLauncher(0);
    // a /health that answers late (within doctor's 1.5 s): the launcher has long answered by then
    const server = createServer((_, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok', version: 'test', log: { path: log } })), 700));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const out = await new Promise<string>((resolve) => {
        const child = spawn(process.execPath, [BEACON_BIN, 'doctor', '--json', '--log', log, '--port', String(port)], { env: h.env, cwd: h.cwd, stdio: ['ignore', 'pipe', 'inherit'] });
        let stdout = '';
        child.stdout!.on('data', (d) => (stdout += d));
        child.on('close', () => resolve(stdout));
      });
      const got = ids(out);
      assert.deepEqual(got, inOrder(got));
      assert.equal(got[0], 'collector');
      const collector = (JSON.parse(out) as { checks: { id: string; status: string }[] }).checks[0]!;
      assert.equal(collector.status, 'ok', JSON.stringify(collector));
    } finally {
      server.close();
    }
  });
});
