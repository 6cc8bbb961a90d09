import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it, type TestContext } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startCollector, type RunningCollector } from '../helpers/daemon';
import { waitFor } from '../helpers/forward';
import { BEACON_BIN, tempDir } from '../helpers/paths';

/**
 * `beacon dashboard --open` and the dashboard's cookie, in Debian's Chromium (issue 22 item 16,
 * issue 29 item 8). Before issue 29 the browser was started with `/?code=…` on its command line
 * (readable by every local user in /proc/PID/cmdline), and a copied session cookie — browsers send
 * 127.0.0.1's cookies to every port, so another user's server receives it — could be replayed to
 * take the session over: the copier's page load replaced the id, the owner got 403 and the copier
 * kept a rolling session for 12 hours. Now the command line names a private file that posts the
 * code, and a replaced id that comes back ends the session for both.
 */
const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'dash-Tok3n-5f1e2d3c4b5a69788796a5b4';
const GRACE_MS = 5_000; // ROTATION_GRACE_MS, as the README states it
const ATTACKER = 65534;

describe('dashboard login', { skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} missing (apt-get install chromium; .ci/run does)` }, () => {
  let collector: RunningCollector;
  let browser: BrowserContext;
  /** another local user's server on another port of 127.0.0.1: what the browser sends it */
  let other: Server;
  const otherCookies: string[] = [];

  before(async () => {
    collector = await startCollector({ env: { BEACON_DASHBOARD_TOKEN: TOKEN } });
    other = createServer((req, res) => {
      otherCookies.push(String(req.headers.cookie ?? ''));
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>elsewhere</p>');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    browser = await chromium.launchPersistentContext(tempDir('chromium-login-'), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
  });
  after(async () => {
    await browser?.close();
    other?.close();
    await collector?.stop();
  });

  /**
   * `beacon dashboard --open` with an opener (xdg-open, found on PATH as the command finds it) that
   * records its command line, as /proc/PID/cmdline shows it. The command waits for the sign-in.
   */
  async function openDashboard(): Promise<{ cmdline: string; exited: Promise<{ status: number | null; stderr: string }> }> {
    const bin = tempDir('opener-');
    const seen = join(bin, 'cmdline');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > '${seen}.tmp' && mv '${seen}.tmp' '${seen}'\n`, { mode: 0o755 });
    const proc = spawn(process.execPath, [BEACON_BIN, 'dashboard', '--open', '--port', String(collector.port)], {
      env: { ...process.env, HOME: tempDir(), BEACON_DASHBOARD_TOKEN: TOKEN, PATH: `${bin}:${process.env.PATH}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr!.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<{ status: number | null; stderr: string }>((r) => proc.on('exit', (status) => r({ status, stderr })));
    const cmdline = await waitFor(() => (existsSync(seen) ? readFileSync(seen, 'utf8') : ''), (s) => s !== '', 'the browser was started');
    return { cmdline, exited };
  }

  async function signIn(page: Page): Promise<void> {
    const { cmdline, exited } = await openDashboard();
    await page.goto(cmdline.trim());
    await page.waitForURL(`${collector.url}/`);
    assert.equal((await exited).status, 0);
  }

  function unreadableByAnotherUser(t: TestContext, file: string): void {
    if (process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0) return t.diagnostic('not root or no setpriv: the second user\'s read was not tried');
    const r = spawnSync('setpriv', [`--reuid=${ATTACKER}`, `--regid=${ATTACKER}`, '--clear-groups', 'cat', file], { encoding: 'utf8' });
    assert.notEqual(r.status, 0, 'another local user read the login page');
    assert.match(r.stderr, /Permission denied/);
  }

  it('the browser is started on a private file, with neither the token nor a code on its command line; the file signs it in, once', async (t) => {
    const { cmdline, exited } = await openDashboard();
    assert.ok(!cmdline.includes(TOKEN) && !cmdline.includes(encodeURIComponent(TOKEN)), cmdline);
    assert.doesNotMatch(cmdline, /code=/, 'no login code on the command line');
    const url = cmdline.trim();
    assert.match(url, /^file:\/\/\/\S+\.html$/, 'one argument: a file URL');
    const file = fileURLToPath(url);
    const page = readFileSync(file, 'utf8');
    const code = /name="code" value="([\w-]{16,})"/.exec(page)?.[1];
    assert.ok(code, page);
    assert.ok(!cmdline.includes(code));
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(dirname(file)).mode & 0o777, 0o700);
    assert.equal(statSync(dirname(file)).uid, process.getuid?.());
    unreadableByAnotherUser(t, file);

    // the real browser on that file: the page posts the code and lands on the dashboard, signed in
    const tab = await browser.newPage();
    await tab.goto(url);
    await tab.waitForURL(`${collector.url}/`);
    await tab.waitForSelector('#health [data-status]');
    const cookie = (await browser.cookies(collector.url)).find((c) => c.name === 'beacon_dashboard');
    assert.ok(cookie && cookie.httpOnly && cookie.sameSite === 'Strict');
    assert.ok(!cookie.value.includes(TOKEN));
    const done = await exited;
    assert.deepEqual(done, { status: 0, stderr: '' });
    assert.ok(!existsSync(dirname(file)), 'the login page is removed once used');

    // the same code again (someone who copied the page): refused
    const again = await fetch(`${collector.url}/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null' }, body: `code=${code}`, redirect: 'manual' });
    assert.equal(again.status, 403);
    await tab.close();
  });

  /** What the browser sends another port of 127.0.0.1 (what remains, README): the session cookie. */
  async function copiedCookie(page: Page): Promise<string> {
    await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`, { waitUntil: 'load' });
    const sent = otherCookies.at(-1) ?? '';
    assert.ok(!sent.includes(TOKEN), 'the token never reaches another port');
    const id = /beacon_dashboard=([^;\s]+)/.exec(sent)?.[1];
    assert.ok(id, `browsers send 127.0.0.1's cookies to every port: ${sent}`);
    return id;
  }
  /** Signed in through the URL `beacon dashboard` prints (so each test stands alone). */
  async function freshSession(): Promise<Page> {
    const page = await browser.newPage();
    assert.equal((await page.goto(`${collector.url}/sessions?token=${TOKEN}`, { waitUntil: 'load' }))?.status(), 200);
    return page;
  }
  const replay = (path: string, id: string) => fetch(`${collector.url}${path}`, { headers: { cookie: `beacon_dashboard=${id}` } });
  const load = async (page: Page, path: string) => (await page.goto(`${collector.url}${path}`, { waitUntil: 'load' }))?.status();

  it('a copied cookie replayed first takes no session over: when the owner comes back, the session ends for both', async () => {
    const page = await freshSession();
    const copied = await copiedCookie(page);
    const taken = await replay('/sessions', copied);
    assert.equal(taken.status, 200, 'the copy works until the owner\'s next request (what remains, README)');
    const thief = /beacon_dashboard=([\w.-]+)/.exec(String(taken.headers.get('set-cookie')))?.[1];
    assert.ok(thief, 'the copier\'s page load replaced the id');
    await new Promise((r) => setTimeout(r, GRACE_MS + 500));

    const res = await page.goto(`${collector.url}/events`, { waitUntil: 'load' });
    assert.equal(res?.status(), 403, 'the owner\'s id was replaced by the copier');
    const told = await res!.text();
    assert.equal((await replay('/sessions', thief)).status, 403, 'the copier lost the session too');
    assert.match(told, /session was ended because a replaced cookie of it came back.*beacon dashboard --open/, 'the owner is told why, and what to do');
    assert.equal((await replay('/api/changes', thief)).status, 403);
    assert.equal((await replay('/sessions', copied)).status, 403);

    await signIn(page); // what the 403 tells the owner to do
    assert.equal(await load(page, '/tokens'), 200);
    await page.close();
  });

  it('the owner going on first: two tabs at once are no reuse, and the copy that comes back later ends the session', async () => {
    const page = await freshSession();
    const copied = await copiedCookie(page);
    // two tabs load pages at the same moment with the same id: one replaces it, the other is inside the grace
    const tabs = [page, await browser.newPage()];
    assert.deepEqual(await Promise.all(tabs.map((p, i) => load(p, i ? '/tokens' : '/events'))), [200, 200]);
    await new Promise((r) => setTimeout(r, GRACE_MS + 500));
    assert.equal(await load(tabs[1]!, '/sessions'), 200, 'the browser holds a current id: no false alarm');

    assert.equal((await replay('/sessions', copied)).status, 403, 'the copy is refused');
    assert.equal(await load(page, '/sessions'), 403, 'and its coming back ended the owner\'s session');
    await Promise.all(tabs.map((p) => p.close()));
  });
});

describe('beacon dashboard --open: the login page does not outlive its use', () => {
  let collector: RunningCollector;
  before(async () => {
    collector = await startCollector({ env: { BEACON_DASHBOARD_TOKEN: TOKEN } });
  });
  after(async () => {
    await collector?.stop();
  });

  /** The command with `bin` as its whole PATH (node is started by its absolute path) and a TMPDIR of its own. */
  function open(bin: string) {
    const tmp = tempDir('login-tmp-');
    const proc = spawn(process.execPath, [BEACON_BIN, 'dashboard', '--open', '--port', String(collector.port)], {
      env: { ...process.env, HOME: tempDir(), BEACON_DASHBOARD_TOKEN: TOKEN, PATH: bin, TMPDIR: tmp },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    proc.stderr!.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<{ status: number | null; signal: NodeJS.Signals | null; stderr: string }>((r) => proc.on('exit', (status, signal) => r({ status, signal, stderr })));
    return { proc, tmp, exited };
  }

  it('no opener on PATH: the page is removed at once and the command says to open the printed URL', async () => {
    const { tmp, exited } = open(tempDir('no-opener-'));
    const r = await exited;
    assert.equal(r.status, 0);
    assert.match(r.stderr, /could not start a browser \(xdg-open\); open the URL printed above/);
    assert.deepEqual(readdirSync(tmp), []);
  });

  it('interrupted while it waits for the browser: the page is removed', async () => {
    const bin = tempDir('idle-opener-');
    writeFileSync(join(bin, 'xdg-open'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const { proc, tmp, exited } = open(bin);
    const dir = await waitFor(() => readdirSync(tmp), (d) => d.length === 1 && existsSync(join(tmp, d[0]!, 'login.html')), 'the login page was written');
    assert.match(dir[0]!, /^beacon-login-/);
    proc.kill('SIGINT');
    const r = await exited;
    assert.equal(r.signal, 'SIGINT');
    assert.deepEqual(readdirSync(tmp), []);
  });
});
