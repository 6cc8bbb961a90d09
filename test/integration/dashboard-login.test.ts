import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';
import { runBeacon, startCollector, type RunningCollector } from '../helpers/daemon';
import { waitFor } from '../helpers/forward';
import { tempDir } from '../helpers/paths';

/**
 * `beacon dashboard --open` and the dashboard's cookie, in Debian's Chromium (issue 22 item 16). On
 * main the browser was started with `?token=<the token>` (its command line, /proc/PID/cmdline, is
 * readable by every local user) and the cookie was the token itself, which the browser also sends
 * to every other port of 127.0.0.1. Now the command line holds a code good once for a minute, and
 * the cookie names a session that the next page load replaces.
 */
const CHROMIUM = '/usr/bin/chromium';
const TOKEN = 'dash-Tok3n-5f1e2d3c4b5a69788796a5b4';

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

  /** `beacon dashboard --open` with an opener that records its command line, as /proc/PID/cmdline shows it. */
  async function openCommandLine(): Promise<string> {
    const bin = tempDir('opener-');
    const seen = join(bin, 'cmdline');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s ' "$0" "$@" > '${seen}.tmp' && mv '${seen}.tmp' '${seen}'\n`, { mode: 0o755 });
    const r = runBeacon(['dashboard', '--open', '--port', String(collector.port)], { HOME: tempDir(), BEACON_DASHBOARD_TOKEN: TOKEN, PATH: `${bin}:${process.env.PATH}` });
    assert.equal(r.status, 0, r.stderr);
    return waitFor(() => (existsSync(seen) ? readFileSync(seen, 'utf8') : ''), (s) => s !== '', 'the browser was started');
  }

  it('the browser\'s command line holds a one-use code, never the token; the code logs in once', async () => {
    const cmdline = await openCommandLine();
    assert.ok(!cmdline.includes(TOKEN) && !cmdline.includes(encodeURIComponent(TOKEN)), cmdline);
    const url = /http:\/\/127\.0\.0\.1:\d+\/\?code=[\w-]+/.exec(cmdline)?.[0];
    assert.ok(url, cmdline);

    const page = await browser.newPage();
    const res = await page.goto(url, { waitUntil: 'load' });
    assert.equal(res?.status(), 200);
    assert.equal(new URL(page.url()).search, '', 'the code left the address bar');
    const cookie = (await browser.cookies(collector.url)).find((c) => c.name === 'beacon_dashboard');
    assert.ok(cookie && cookie.httpOnly && cookie.sameSite === 'Strict');
    assert.ok(!cookie.value.includes(TOKEN));

    // the same URL again (someone who read the command line): refused
    const again = await fetch(url, { redirect: 'manual' });
    assert.equal(again.status, 403);
    await page.close();
  });

  it('the cookie another port of 127.0.0.1 receives is not the token, and dead after the next page load', async () => {
    const page = await browser.newPage();
    assert.equal((await page.goto(`${collector.url}/sessions`, { waitUntil: 'load' }))?.status(), 200, 'logged in by the first test');
    await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`, { waitUntil: 'load' });
    const sent = otherCookies.at(-1) ?? '';
    const stolen = /beacon_dashboard=([^;\s]+)/.exec(sent)?.[1];
    assert.ok(stolen, `browsers send 127.0.0.1's cookies to every port (what remains, README): ${sent}`);
    assert.ok(!sent.includes(TOKEN), 'the token never reaches another port');

    // the user goes on using the dashboard: the page load replaces the session, the old id outlives it by 5 s
    assert.equal((await page.goto(`${collector.url}/events`, { waitUntil: 'load' }))?.status(), 200);
    await new Promise((r) => setTimeout(r, 5500));
    const replay = await fetch(`${collector.url}/sessions`, { headers: { cookie: `beacon_dashboard=${stolen}` } });
    assert.equal(replay.status, 403, 'the captured cookie no longer opens the dashboard');
    assert.equal((await page.goto(`${collector.url}/tokens`, { waitUntil: 'load' }))?.status(), 200, 'the user is still logged in');
    await page.close();
  });
});
