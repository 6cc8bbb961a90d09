import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
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

/** Reads the token beside `logPath`, creating it (exclusively, 0600) when there is none. */
export function ensureHookToken(logPath: string): string {
  const path = hookTokenPath(logPath);
  const existing = readHookToken(path);
  if (existing) return existing;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('hex');
  try {
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      writeSync(fd, `${PREFIX}${token}\n`);
    } finally {
      closeSync(fd);
    }
    return token;
  } catch (e) {
    // Another process (install, a second collector) created it first: theirs is the token.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = readHookToken(path);
      if (theirs) return theirs;
    }
    throw e;
  }
}

/** The token in `path`, or undefined when the file is missing, unreadable, malformed, or readable by others. */
export function readHookToken(path: string): string | undefined {
  let text: string;
  try {
    const fd = openSync(path, constants.O_RDONLY);
    try {
      // A token others can read is no secret: refuse it rather than trust it.
      if ((fstatSync(fd).mode & 0o077) !== 0) return undefined;
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const m = /^X-Beacon-Hook-Token: ([0-9a-f]{64})\s*$/.exec(text);
  return m?.[1];
}

/** Constant-time comparison, so the reply's timing says nothing about how much of a guess was right. */
export function tokenMatches(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}
