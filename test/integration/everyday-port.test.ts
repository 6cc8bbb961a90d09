/**
 * Issue 24 item 4: every command means the same collector. `beacon dashboard` finds one started on
 * another port (the address file beside the log says where), and `install goose` asks to change an
 * endpoint config.yaml already has instead of adding a second key.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runBeacon, startCollector } from '../helpers/daemon';
import { tempDir } from '../helpers/paths';

describe('one port for every command (issue 24 item 4)', () => {
  // Fails on main: dashboard printed http://127.0.0.1:4318/ and exited 1.
  it('beacon dashboard and doctor find the collector running on the log on another port', async () => {
    const c = await startCollector();
    try {
      const env = { HOME: tempDir('port-home-'), BEACON_ENDPOINT_LOG: c.log };
      const d = runBeacon(['dashboard'], env);
      assert.equal(d.stdout.trim().split('\n')[0], `http://127.0.0.1:${c.port}/`, d.stdout + d.stderr);
      assert.equal(d.status, 0, d.stderr);
      const doctor = runBeacon(['doctor', '--json'], env);
      const collector = JSON.parse(doctor.stdout).checks.find((k: { id: string }) => k.id === 'collector');
      assert.match(collector.message, new RegExp(`:${c.port}\\b`), collector.message);
    } finally {
      await c.stop();
    }
  });

  // issue 33: the collector's token came from its own environment; this shell's config has none (or another)
  it('beacon dashboard prints the URL with the token the running collector uses, whatever this shell says', async () => {
    const c = await startCollector({ env: { BEACON_DASHBOARD_TOKEN: 'the-collectors-token' } });
    try {
      for (const shellToken of [undefined, 'a-stale-token']) {
        const env = { HOME: tempDir('port-home-'), BEACON_ENDPOINT_LOG: c.log, ...(shellToken ? { BEACON_DASHBOARD_TOKEN: shellToken } : {}) };
        const d = runBeacon(['dashboard'], env);
        assert.equal(d.status, 0, d.stderr);
        const url = d.stdout.trim().split('\n')[0]!;
        assert.equal(url, `http://127.0.0.1:${c.port}/?token=the-collectors-token`, String(shellToken));
        assert.equal((await fetch(url, { redirect: 'manual' })).status, 303, 'the URL signs in');
      }
    } finally {
      await c.stop();
    }
    assert.equal(existsSync(`${c.log}.dashboard-token`), false, 'the token file goes with the collector');
    const after = runBeacon(['dashboard', '--port', String(c.port)], { HOME: tempDir('port-home-'), BEACON_ENDPOINT_LOG: c.log, BEACON_DASHBOARD_TOKEN: 'mine' });
    assert.equal(after.status, 1, 'no collector answers now');
  });

  // Fails on main: "add these lines" with the key config.yaml already holds (a duplicate key).
  it('install goose asks to change an endpoint config.yaml already has, not to add it again', () => {
    const home = tempDir('port-home-');
    const yaml = join(home, '.config', 'goose', 'config.yaml');
    mkdirSync(join(yaml, '..'), { recursive: true });
    writeFileSync(yaml, 'GOOSE_PROVIDER: anthropic\notel_exporter_otlp_endpoint: http://127.0.0.1:9999\n');
    const r = runBeacon(['install', 'goose'], { HOME: home, BEACON_COLLECTOR_PORT: '4720', GOOSE_PATH_ROOT: '', XDG_CONFIG_HOME: '', BEACON_SERVICE_NO_ACTIVATE: '1' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /change otel_exporter_otlp_endpoint from http:\/\/127\.0\.0\.1:9999 to http:\/\/127\.0\.0\.1:4720/, r.stdout);
    assert.doesNotMatch(r.stdout, /add these lines/, r.stdout);
  });
});
