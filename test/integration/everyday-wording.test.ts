/**
 * Issue 24 items 9 and 10: the README's cleanup advice, and the small things a newcomer tripped over.
 * Each assertion failed on main as noted.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { traceRequest } from '../helpers/otlp-json';
import { BEACON_BIN, repoRoot, tempDir } from '../helpers/paths';

const json = { 'content-type': 'application/json' };

async function twoSessions(): Promise<string> {
  const c = await startCollector();
  for (const id of ['w_1', 'w_2']) {
    const r = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: id }).spans)), headers: json });
    assert.equal(r.status, 200);
  }
  await c.stop();
  return c.log;
}

describe('everyday wording (issue 24 items 9, 10)', () => {
  it('item 9: prune says it judges by receive time, and the README says so instead of promising a removal', async () => {
    const log = await twoSessions();
    const r = runBeacon(['prune', '--log', log, '--max-age-days', '1', '--max-bytes', String(2 * 1024 ** 3)]);
    assert.equal(r.status, 0, r.stderr);
    // main: "removed 0 events older than 1 day and … (limit 2048.0 MiB)"
    assert.match(r.stdout, /removed 0 events received more than 1 day ago/, r.stdout);
    assert.match(r.stdout, /limit 2 GiB\)/, r.stdout);
    const readme = readFileSync(join(repoRoot(), 'README.md'), 'utf8');
    assert.doesNotMatch(readme, /`beacon prune --max-age-days 1` removes them later/);
    assert.match(readme, /judges an event's age by when Beacon received\s+it/);
    assert.doesNotMatch(readme, /reported on stderr \(by line number\) and\s+skipped/, 'the stream adapter keeps such a line as an unknown event');
  });

  it('item 10: "(1 other)", and sessions --json prints times as events --json does', async () => {
    const log = await twoSessions();
    const top = runBeacon(['token-usage', '--log', log, '--by', 'session', '--top', '1']);
    assert.match(top.stdout, /^\(1 other\)\s/m, top.stdout); // main: (1 others)
    const session = jsonl(runBeacon(['sessions', '--log', log, '--json']).stdout)[0];
    const event = jsonl(runBeacon(['events', '--log', log, '--json', '--limit', '1']).stdout)[0];
    const shape = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/;
    assert.match(event.timestamp, shape);
    assert.match(session.start, shape, `sessions --json start ${session.start}`); // main: 2026-08-21 08:30:00.010+00:00
    assert.match(session.end, shape);
  });

  it('item 10: a port in use is named as itself, and the failed start leaves no log behind', async () => {
    const c = await startCollector();
    try {
      const log = join(tempDir('busy-'), 'events.db');
      const r = spawnSync(process.execPath, [BEACON_BIN, 'collector', '--port', String(c.port), '--log', log], { encoding: 'utf8', env: { ...process.env, HOME: tempDir() }, timeout: 15_000 });
      assert.notEqual(r.status, 0);
      const said = r.stdout + r.stderr;
      assert.match(said, /port is in use/, said);
      assert.doesNotMatch(said, /4318/, `port ${c.port} is in use, not 4318: ${said}`); // main: "an otelcol or agent listening on 4318"
      assert.equal(existsSync(log), false, 'no log file from a start that failed'); // main: created
    } finally {
      await c.stop();
    }
  });

  it('item 10: beacon dashboard prints no URL when nothing answers there', () => {
    const r = runBeacon(['dashboard', '--port', '9'], { HOME: tempDir() });
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '', 'a printed URL is a promise it works'); // main: printed http://127.0.0.1:9/
    assert.match(r.stderr, /no collector answers at http:\/\/127\.0\.0\.1:9/);
  });

  it('item 10: doctor names where the port came from without doubled parentheses', async () => {
    const c = await startCollector();
    try {
      const doctor = runBeacon(['doctor'], { HOME: tempDir(), BEACON_ENDPOINT_LOG: c.log });
      const line = doctor.stdout.split('\n').find((l) => /\] collector /.test(l))!;
      assert.ok(line, doctor.stdout);
      assert.doesNotMatch(line, /\(\(|\)\)|\)\s*\(/, line); // main: (port from the default) (beacon 0.1.0)
    } finally {
      await c.stop();
    }
  });
});
