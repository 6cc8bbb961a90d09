import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { ensurePrivateDir, readChecked, unsafePath } from '../model/file-checks';
import { dirname, join } from 'node:path';

/**
 * The per-user secret that lets a hook launcher write through the collector. It lives beside the
 * event log (mode 0600 in a 0700 directory), so whoever may write the log may also send hooks, and
 * nobody else: another local user cannot read it, and a web page cannot learn it.
 *
 * The file holds one HTTP header line, `X-Beacon-Hook-Token: <hex>`, because the launcher hands it
 * to curl as `-H @file`: the token never appears on a command line (`ps` shows those to every user).
 */
export const HOOK_TOKEN_HEADER = 'x-beacon-hook-token';
const FILE_NAME = 'hook-token';
const PREFIX = 'X-Beacon-Hook-Token: ';

export function hookTokenPath(logPath: string): string {
  return join(dirname(logPath), FILE_NAME);
}

/**
 * Reads the token beside `logPath`, creating it (exclusively, 0600) when there is none. A token file
 * that is not the user's alone is refused with one message naming it and the fix (issue 22 item 3:
 * a world-readable one used to end the collector with a bare `EEXIST: file already exists`).
 */
export function ensureHookToken(logPath: string): string {
  const path = hookTokenPath(logPath);
  ensurePrivateDir(dirname(path));
  const existing = loadHookToken(path);
  if (existing) return existing;
  const token = randomBytes(32).toString('hex');
  try {
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, `${PREFIX}${token}\n`);
    } finally {
      closeSync(fd);
    }
    return token;
  } catch (e) {
    // Another process (install, a second collector) created it first: theirs is the token.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = loadHookToken(path);
      if (theirs) return theirs;
    }
    throw e;
  }
}

/**
 * The token in `path`; undefined when there is no file; a BeaconError naming the path and the fix
 * when the file is not the user's alone (a symlink, a FIFO, another user's, readable by others) or
 * does not hold a token.
 */
function loadHookToken(path: string): string | undefined {
  let text: string;
  try {
    // A token others can read is no secret: refused rather than trusted, and a new one is the fix.
    text = readChecked(path, 4096, { refuseReadableFix: `rm '${path}' and run the command again: Beacon writes a new token (0600) that only you can read` }).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const m = TOKEN_LINE.exec(text);
  if (!m) throw unsafePath(path, 'it does not hold a Beacon hook token', `rm '${path}' and run the command again`);
  return m[1];
}

const TOKEN_LINE = /^X-Beacon-Hook-Token: ([0-9a-f]{64})\s*$/;

/** The token in `path`, or undefined when the file is missing, unreadable, malformed, not the user's alone, or readable by others. */
export function readHookToken(path: string): string | undefined {
  try {
    return loadHookToken(path);
  } catch {
    return undefined;
  }
}

/** Constant-time comparison, so the reply's timing says nothing about how much of a guess was right. */
export function tokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
