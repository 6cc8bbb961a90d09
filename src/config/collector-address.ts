import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { isLoopback, isWildcard } from './hosts';

/**
 * Where the running collector that writes a log can be reached: one line, its loopback URL and its
 * pid, in a file beside the log (`<log>.collector-url`, 0600), written once it listens and removed
 * when it stops. The hook launcher reads it with the shell's own `read`: no file, no collector — the
 * hook goes straight to the direct writer without starting a curl that could only be refused (≈ 20
 * ms of a fallback hook under load). It also finds a collector started on another port than the
 * one `beacon install goose` knew. A collector killed outright leaves the file; the launcher's
 * `kill -0 PID` (a shell builtin) then fails, so it neither waits for a refused curl nor hands the
 * token and the payload to whatever may listen on that port since.
 */
export function collectorAddressPath(logPath: string): string {
  return `${logPath}.collector-url`;
}

/**
 * The URL a local hook may use for a collector bound to `host`: loopback or a wildcard address
 * reach it on loopback; a collector bound to one other interface refuses loopback Host names on the
 * hook route anyway, so it gets no file.
 */
export function loopbackUrl(host: string, port: number): string | undefined {
  if (host === '::1') return `http://[::1]:${port}`;
  if (isLoopback(host) || isWildcard(host)) return `http://127.0.0.1:${port}`;
  return undefined;
}

const line = (url: string) => `${url} ${process.pid}\n`;

/**
 * Written whole or not at all (a launcher never reads half a URL), through a new file of an
 * unguessable name (O_EXCL: a symlink planted in a shared directory is not followed).
 */
export function writeCollectorAddress(logPath: string, url: string): void {
  const path = collectorAddressPath(logPath);
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, line(url));
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** Removes the file if it is still this collector's (a second one on the same log may have replaced it). */
export function removeCollectorAddress(logPath: string, url: string): void {
  const path = collectorAddressPath(logPath);
  try {
    if (readFileSync(path, 'utf8') === line(url)) unlinkSync(path);
  } catch {
    // already gone
  }
}
