import assert from 'node:assert/strict';
import { chmodSync, lstatSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runBeacon } from '../helpers/daemon';
import { ATTACKER, otherUser } from '../helpers/other-user';
import { tempDir } from '../helpers/paths';

/**
 * Issue 29 items 6, 10a and 10b: a red team with a second local user (uid 65534, reached with
 * setpriv) against the files Beacon writes besides the log: the runtime.jsonl export, the
 * background collector's own log, and the spool's refused segments.
 */
const re = (s: string) => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

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
