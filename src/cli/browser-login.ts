import { spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loginPage } from '../dashboard/login';
import { openChecked } from '../model/file-checks';

const POLL_MS = 200;
/** At most this long for a code, whatever a collector says (it says 60 s). */
const MAX_WAIT_MS = 300_000;

/**
 * `beacon dashboard --open` on a dashboard with a token (issue 29 item 8). The browser's command
 * line is readable by every local user (/proc/PID/cmdline), so it carries neither the token nor a
 * login code: the code goes into a page (dashboard/login.ts) in a file only this user can read — a
 * fresh 0700 directory under the temporary directory (mkdtemp), the file 0600 — and the browser is
 * started on that file's file:// URL. The page posts the code as it loads. This waits until the
 * collector says the code is used or expired (or the opener could not start), then removes the
 * directory. Returns what to tell the user when the browser did not sign in; undefined when it did.
 */
export async function openSignedIn(origin: string, token: string): Promise<string | undefined> {
  const issued = await loginCode(origin, token);
  if (!issued) {
    openInBrowser(`${origin}/`); // an older collector: its page asks for the printed URL
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'beacon-login-'));
  const removePage = () => rmSync(dir, { recursive: true, force: true });
  const onSignal = (signal: NodeJS.Signals) => {
    removePage();
    process.kill(process.pid, signal); // the default action, now that the page is gone
  };
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(s, onSignal);
  try {
    const file = join(dir, 'login.html');
    const fd = openChecked(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      writeSync(fd, loginPage(origin, issued.code));
    } finally {
      closeSync(fd);
    }
    const opener = openInBrowser(pathToFileURL(file).href);
    const used = await untilUsed(origin, token, issued.code, Date.now() + issued.ttlMs, opener);
    if (used) return undefined;
    return opener.failed
      ? `beacon: could not start a browser (${opener.command}); open the URL printed above`
      : `beacon: the browser did not sign in within ${Math.round(issued.ttlMs / 1000)} s; run "beacon dashboard --open" again`;
  } finally {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(s, onSignal);
    removePage();
  }
}

/** A one-use code for the token, from the collector (sent as a Bearer header, never on a command line). */
async function loginCode(origin: string, token: string): Promise<{ code: string; ttlMs: number } | undefined> {
  try {
    const r = await fetch(`${origin}/api/login-code`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(1500) });
    const { code, expiresInSeconds } = (await r.json()) as { code?: unknown; expiresInSeconds?: unknown };
    if (!r.ok || typeof code !== 'string' || !/^[\w-]{16,64}$/.test(code)) return undefined;
    const ttlMs = typeof expiresInSeconds === 'number' && expiresInSeconds > 0 ? Math.min(expiresInSeconds * 1000, MAX_WAIT_MS) : 60_000;
    return { code, ttlMs };
  } catch {
    return undefined; // an older collector, or none
  }
}

/** True once the collector says the code was redeemed (the page posted it); false when it expired, the opener failed or the collector went away. */
async function untilUsed(origin: string, token: string, code: string, deadline: number, opener: { failed: boolean }): Promise<boolean> {
  for (;;) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    if (opener.failed) return false;
    const state = await fetch(`${origin}/api/login-code/state`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code }).toString(),
      signal: AbortSignal.timeout(1500),
    }).then(async (r) => (r.ok ? ((await r.json()) as { state?: unknown }).state : undefined), () => undefined);
    if (state === 'gone') return true;
    // one failed or slow poll (undefined) is no answer: only an expired code or the deadline ends the wait
    if (state === 'expired' || Date.now() >= deadline) return false;
  }
}

/** Starts the platform's opener on `url`, detached; `failed` turns true when it cannot be started. */
export function openInBrowser(url: string): { command: string; failed: boolean } {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  const state = { command: cmd as string, failed: false };
  const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => (state.failed = true)); // no opener installed: the printed URL is still there
  child.unref();
  return state;
}
