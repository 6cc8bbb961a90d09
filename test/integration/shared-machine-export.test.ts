import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spoolDir } from '../../src/ingest/spool';
import type { HealthReport } from '../../src/model/health';
import { runBeacon, startCollector } from '../helpers/daemon';
import { ATTACKER, otherUser } from '../helpers/other-user';
import { tempDir } from '../helpers/paths';

/**
 * Issue 29 items 6, 10a and 10b: a red team with a second local user (uid 65534, reached with
 * setpriv) against the files Beacon writes besides the log: the runtime.jsonl export, the
 * background collector's own log, and the spool's refused segments.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const health = async (url: string) => (await (await fetch(`${url}/health`)).json()) as HealthReport;
const re = (s: string) => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

async function waitFor(pred: () => boolean | Promise<boolean>, what: string) {
  for (let i = 0; i < 100; i++) {
    if (await pred()) return;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('collector --detach checks the directory before it opens its own log (issue 29 item 10a)', () => {
  // Fails on main: the refusal of the directory was appended through the link, to a file the other user reads.
  it('a <log>.collector.log symlink another user planted in a directory they may write receives nothing; one in a private directory is refused too', async (t) => {
    const as = otherUser(t);
    if (!as) return;
    const open = tempDir('detach-open-');
    chmodSync(open, 0o777);
    as(`cd '${open}' && : > leak && chmod 666 leak && ln -s leak events.db.collector.log`);
    const home = tempDir('home-');
    const r = runBeacon(['collector', '--detach', '--log', join(open, 'events.db'), '--port', '0', '--grpc-port', '0'], { HOME: home });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, re(`refusing ${open}: other users may write the directory (mode 777)`));
    assert.equal(readFileSync(join(open, 'leak'), 'utf8'), '', 'nothing appended through the link');
    assert.equal(lstatSync(join(open, 'leak')).uid, ATTACKER);

    const mine = tempDir('detach-mine-');
    const target = join(tempDir('elsewhere-'), 'target');
    writeFileSync(target, '');
    symlinkSync(target, join(mine, 'events.db.collector.log'));
    const log = join(mine, 'events.db');
    try {
      const s = runBeacon(['collector', '--detach', '--log', log, '--port', '0', '--grpc-port', '0'], { HOME: home });
      assert.notEqual(s.status, 0, s.stdout);
      assert.match(s.stderr, re(`refusing ${log}.collector.log: it is a symbolic link where Beacon expects its own file`));
      assert.equal(readFileSync(target, 'utf8'), '');
    } finally {
      runBeacon(['collector', '--stop', '--log', log], { HOME: home }); // on main the collector started: stop it
    }
  });
});

describe('a refused spool segment that cannot be set aside is logged once (issue 29 item 10b)', () => {
  // Fails on main: "spool segment set aside" (it was not) was logged again every second, and /health said nothing.
  it('logged once, counted on /health as unmovable, skipped, and set aside once it can be', async (t) => {
    const as = otherUser(t);
    const logDir = tempDir('spooled-');
    chmodSync(logDir, 0o711); // the second user may pass through, not list or write
    const c = await startCollector({ log: join(logDir, 'events.db') });
    try {
      const dir = spoolDir(c.log);
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o777); // a careless spool directory another user may write
      const name = `${Date.now()}-9-dddddd.rows`;
      // A segment, and a directory at the name it would be set aside to: the rename fails (EISDIR) for root too.
      const script = `cd '${dir}' && echo 'not rows' > ${name} && mkdir ${name}.bad && : > ${name}.bad/keep`;
      if (as) as(script);
      else assert.equal(spawnSync('sh', ['-c', script]).status, 0);
      await sleep(3500); // three passes of the spool loop or more
      const about = c.lines.filter((l) => l.includes(name));
      assert.equal(about.length, 1, `logged once:\n${about.join('\n')}`);
      assert.deepEqual((await health(c.url)).spool, { setAside: 0, unmovable: 1 });
      rmSync(join(dir, `${name}.bad`), { recursive: true });
      await waitFor(async () => (await health(c.url)).spool?.setAside === 1, 'set aside once it can be');
      assert.equal((await health(c.url)).spool?.unmovable, 0);
      assert.ok(statSync(join(dir, `${name}.bad`)).isFile() && !existsSync(join(dir, name)));
      assert.equal(c.lines.filter((l) => l.includes(name)).length, 1, 'the quiet retry logs nothing more');
    } finally {
      assert.equal(await c.stop(), 0);
    }
  });
});
