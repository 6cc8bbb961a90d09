import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { hookTokenPath, readHookToken } from '../../src/config/hook-token';
import { spoolDir, spoolRows } from '../../src/ingest/spool';
import { beaconRows } from '../helpers/beacon-rows';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { ATTACKER, otherUser } from '../helpers/other-user';
import { BEACON_BIN, tempDir } from '../helpers/paths';

/**
 * Issue 22 items 1 and 3: Beacon's directories and files are checked like ~/.ssh. The attacker is a
 * second, unprivileged local user: `nobody` (uid 65534), reached with setpriv from root (CI runs as
 * root, test/helpers/other-user.ts). Where this process cannot become another user the test is skipped and says why.
 */

/** A home the second user can reach: 0755, with a ~/.beacon anyone may write (a shared or careless setup). */
function reachableHome(): string {
  const home = tempDir('shared-home-');
  chmodSync(home, 0o755);
  mkdirSync(join(home, '.beacon'), { mode: 0o777 });
  chmodSync(join(home, '.beacon'), 0o777);
  return home;
}

const collectorFails = (home: string, args: string[] = []) =>
  spawnSync(process.execPath, [BEACON_BIN, 'collector', '--port', '0', ...args], { env: { ...process.env, HOME: home, BEACON_ENDPOINT_LOG: '' }, encoding: 'utf8', timeout: 10_000 });

describe('files another local user controls are refused, naming the path and the fix (issue 22 item 1)', () => {
  // Fails on main: install wrote its launcher into the attacker's directory, and the collector started.
  it('~/.beacon/endpoint pre-created by another user: install and the collector refuse it', (t) => {
    const as = otherUser(t);
    if (!as) return;
    const home = reachableHome();
    const base = join(home, '.beacon', 'endpoint');
    as(`mkdir -m 777 '${base}' '${base}/bin' && printf 'echo owned > /tmp/owned-by-attacker\\n' > '${base}/bin/beacon-hooks'`);
    const install = runBeacon(['install', 'goose'], { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), BEACON_ENDPOINT_LOG: '' });
    assert.notEqual(install.status, 0, install.stdout);
    assert.match(install.stderr, new RegExp(`refusing ${base.replace(/[.]/g, '\\.')}: the directory belongs to uid ${ATTACKER}, not to you`));
    assert.match(install.stderr, /Fix: move it aside \(mv /);
    assert.equal(readFileSync(join(base, 'bin', 'beacon-hooks'), 'utf8'), "echo owned > /tmp/owned-by-attacker\n", 'install left the attacker\'s file alone and wrote nothing');
    const c = collectorFails(home);
    assert.equal(c.status, 1);
    assert.match(c.stderr, /belongs to uid 65534, not to you/);
  });

  it('~/.beacon/endpoint of the user but 0777: refused, the fix is chmod go-w', () => {
    const home = tempDir('shared-home-');
    const base = join(home, '.beacon', 'endpoint');
    mkdirSync(base, { recursive: true });
    chmodSync(base, 0o777);
    const c = collectorFails(home);
    assert.equal(c.status, 1);
    assert.match(c.stderr, new RegExp(`refusing ${base.replace(/[.]/g, '\\.')}: other users may write the directory \\(mode 777\\)\\. .*Fix: chmod go-w '${base.replace(/[.]/g, '\\.')}'`));
  });

  it('events.db as a symlink (to a file another user reads) is refused, and nothing is written through it', () => {
    const dir = tempDir('symlog-');
    const target = join(tempDir('elsewhere-'), 'stolen.db');
    writeFileSync(target, '');
    symlinkSync(target, join(dir, 'events.db'));
    const c = collectorFails(tempDir('home-'), ['--log', join(dir, 'events.db')]);
    assert.equal(c.status, 1);
    assert.match(c.stderr, /events\.db: it is a symbolic link where Beacon expects its own file\. .*Fix: remove the link/);
    assert.equal(readFileSync(target, 'utf8'), '');
  });

  it('a spool segment another user dropped is set aside, not ingested; a FIFO named like a segment does not freeze the collector', async (t) => {
    const as = otherUser(t);
    const logDir = tempDir('spooled-');
    chmodSync(logDir, 0o711); // the second user may pass through, not list or write
    const c = await startCollector({ log: join(logDir, 'events.db') });
    try {
      const dir = spoolDir(c.log);
      mkdirSync(dir, { recursive: true });
      // A FIFO named like a segment (the same user can make one; another user could where the directory lets them).
      spawnSync('mkfifo', [join(dir, `${Date.now()}-1-aaaaaa.rows`)]);
      let forged = '';
      if (as) {
        chmodSync(dir, 0o777); // a careless directory: the rows of the segment below would be stored unredacted
        const scratch = join(tempDir('scratch-'), 'x.db');
        const segment = spoolRows(scratch, beaconRows(1, 'forged'));
        forged = `${Date.now()}-2-bbbbbb.rows`;
        as(`umask 077; cat > '${join(dir, forged)}'`, readFileSync(segment, 'utf8'));
      }
      await new Promise((r) => setTimeout(r, 1200)); // the spool loop has met the FIFO
      const t0 = Date.now();
      const h = await fetch(`${c.url}/health`, { signal: AbortSignal.timeout(5000) });
      const healthMs = Date.now() - t0;
      assert.equal(h.status, 200, 'the collector answers while a FIFO sits in its spool');
      const names = readdirSync(dir);
      assert.ok(names.some((n) => n.endsWith('-aaaaaa.rows.bad')), `the FIFO is set aside: ${names}`);
      if (as) {
        assert.ok(names.includes(`${forged}.bad`), `another user's segment is set aside: ${names}`);
        const db = new Database(c.log, { readonly: true });
        assert.equal((db.prepare("SELECT count(*) AS n FROM events WHERE id LIKE 'forged-%'").get() as { n: number }).n, 0);
        db.close();
        assert.ok(c.lines.some((l) => /belongs to uid 65534/.test(l)), 'the collector says why');
      }
      console.log(`# item 1: /health answered in ${healthMs} ms with a FIFO named like a segment in the spool`);
    } finally {
      assert.equal(await c.stop(), 0);
    }
  });
});

describe('files with loose modes say so (issue 22 item 3)', () => {
  // Fails on main: the 0644 log was used as it was, without a word.
  it('a pre-existing 0644 log in a 0755 directory is made 0600, with a warning naming it', () => {
    const dir = tempDir('loose-');
    chmodSync(dir, 0o755);
    const log = join(dir, 'events.db');
    writeFileSync(log, '');
    chmodSync(log, 0o644);
    const r = spawnSync(process.execPath, [BEACON_BIN, 'prune', '--log', log, '--max-age-days', '30'], { encoding: 'utf8', env: { ...process.env, HOME: tempDir('home-') } });
    assert.match(r.stderr, new RegExp(`${log.replace(/[.]/g, '\\.')} was readable by other users \\(mode 644\\); Beacon made it 600`));
    assert.equal(spawnSync('stat', ['-c', '%a', log], { encoding: 'utf8' }).stdout.trim(), '600');
  });

  // Fails on main: the collector exited with only "EEXIST: file already exists".
  it('a world-readable hook-token: the collector refuses with the path and the fix, not a bare EEXIST', () => {
    const dir = tempDir('token-');
    const log = join(dir, 'events.db');
    writeFileSync(join(dir, 'hook-token'), `X-Beacon-Hook-Token: ${'ab'.repeat(32)}\n`, { mode: 0o644 });
    chmodSync(join(dir, 'hook-token'), 0o644);
    const c = collectorFails(tempDir('home-'), ['--log', log]);
    assert.equal(c.status, 1);
    assert.doesNotMatch(c.stderr, /EEXIST/);
    assert.match(c.stderr, new RegExp(`refusing ${dir.replace(/[.]/g, '\\.')}/hook-token: other users may read it \\(mode 644\\)\\. .*Fix: rm '.*hook-token' and run the command again`));
    assert.ok(existsSync(join(dir, 'hook-token')));
  });
});

describe('a workspace is read without blocking and within bounds (issue 22 item 2)', () => {
  const preTool = (session: string, dir: string) => ({ event: 'PreToolUse', session_id: session, tool_call_id: `call_${session}`, tool_name: 'shell', tool_input: { command: 'ls' }, working_dir: dir });

  // Fails on main: readFileSync on the FIFO blocked the collector's main thread; the hook and /health timed out.
  it('a FIFO at .git/HEAD under the working directory: the hook is answered, /health too, no branch recorded', async (t) => {
    const as = otherUser(t);
    const c = await startCollector();
    try {
      const token = readHookToken(hookTokenPath(c.log))!;
      const post = (sub: string, body: unknown) => fetch(`${c.url}/v1/hooks/goose/${sub}`, {
        method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(5000),
        headers: { 'content-type': 'application/json', 'x-beacon-hook-token': token, 'x-beacon-log': c.log },
      });
      const fifoRepo = tempDir('fifo-repo-');
      mkdirSync(join(fifoRepo, '.git'));
      mkdirSync(join(fifoRepo, 'sub'));
      assert.equal(spawnSync('mkfifo', [join(fifoRepo, '.git', 'HEAD')]).status, 0);
      const t0 = Date.now();
      const r = await post('pre-tool', preTool('fifo_head', join(fifoRepo, 'sub')));
      assert.equal(r.status, 200);
      const health = await fetch(`${c.url}/health`, { signal: AbortSignal.timeout(5000) });
      assert.equal(health.status, 200);
      console.log(`# item 2: hook with a FIFO .git/HEAD answered, and /health after it, in ${Date.now() - t0} ms`);
      const stored = jsonl(runBeacon(['events', '--log', c.log, '--json', '--session', 'fifo_head']).stdout);
      assert.equal(stored.length, 1);
      assert.equal(stored[0].branch, undefined);
      if (as) {
        // An ancestor .git another user made names no branch of ours (git's safe.directory rule).
        const shared = tempDir('shared-tmp-');
        chmodSync(shared, 0o777);
        as(`mkdir '${shared}/.git' && printf 'ref: refs/heads/attacker-chosen\\n' > '${shared}/.git/HEAD'`);
        mkdirSync(join(shared, 'victim'));
        assert.equal((await post('pre-tool', preTool('foreign_git', join(shared, 'victim')))).status, 200);
        const foreign = jsonl(runBeacon(['events', '--log', c.log, '--json', '--session', 'foreign_git']).stdout);
        assert.equal(foreign[0].branch, undefined);
      }
    } finally {
      if ((await Promise.race([c.stop(), new Promise((r) => setTimeout(() => r('hung'), 8000))])) === 'hung') c.proc.kill('SIGKILL');
    }
  });
});

describe('one collector per log (issue 22 item 5)', () => {
  // Fails on main: the second started without a word, and its stop removed the first's address file.
  it('a second collector on the same log refuses to start, naming the first; the first keeps its address file', async () => {
    const first = await startCollector();
    try {
      const address = `${first.log}.collector-url`;
      const before = readFileSync(address, 'utf8');
      const second = spawnSync(process.execPath, [BEACON_BIN, 'collector', '--port', '0', '--log', first.log], { encoding: 'utf8', timeout: 10_000, env: { ...process.env, HOME: tempDir('home-') } });
      assert.equal(second.status, 1, second.stdout);
      assert.match(second.stderr, new RegExp(`another Beacon collector \\(pid ${first.proc.pid}, http://127\\.0\\.0\\.1:${first.port}\\) already writes ${first.log.replace(/[.]/g, '\\.')}: stop it first`));
      assert.equal(readFileSync(address, 'utf8'), before, 'the first collector\'s address file is untouched');
    } finally {
      assert.equal(await first.stop(), 0);
    }
  });

  it('a stale address file (its collector killed, the pid gone) does not stop a new collector', async () => {
    const first = await startCollector();
    assert.equal(await first.stop('SIGKILL'), null);
    assert.ok(existsSync(`${first.log}.collector-url`), 'a killed collector leaves its file');
    const next = await startCollector({ log: first.log });
    try {
      assert.match(readFileSync(`${first.log}.collector-url`, 'utf8'), new RegExp(`:${next.port} ${next.proc.pid} `));
    } finally {
      assert.equal(await next.stop(), 0);
    }
  });
});
