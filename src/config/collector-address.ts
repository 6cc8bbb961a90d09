import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { BeaconError, isBeaconError } from '../model/errors';
import { readChecked } from '../model/file-checks';
import { isLoopback, isWildcard } from './hosts';

/**
 * Where the running collector that writes a log can be reached: one line — its loopback URL, its
 * pid and, on Linux, the pid's start time (clock ticks since boot, /proc/PID/stat field 22) — in a
 * file beside the log (`<log>.collector-url`, 0600), written once it listens and removed when it
 * stops. The hook launcher reads it with the shell's own `read`: no file, no collector — the hook
 * goes straight to the direct writer without starting a curl that could only be refused (≈ 20 ms of
 * a fallback hook under load). It also finds a collector started on another port than the one
 * `beacon install goose` knew. A collector killed outright leaves the file: the launcher then
 * checks that the pid still is the process that wrote it — the same start time, read from /proc
 * without a fork — so neither pid 0 (`kill -0 0` signals the caller's own group) nor a pid reused
 * since gets the token and the payload (issue 22 item 4). Without /proc (macOS) it falls back to
 * `kill -0` on a pid above 1.
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

/** A process's start time in clock ticks since boot (Linux), the field the launcher compares; undefined elsewhere. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // after "pid (comm) ": fields 3…; the comm may hold ") ", so split after the last one
    return stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

const ownStart = processStartTime(process.pid);
const line = (url: string) => `${url} ${process.pid}${ownStart === undefined ? '' : ` ${ownStart}`}\n`;

export interface CollectorAddress {
  url: string;
  pid: number;
  started?: string;
}

/** The address file's collector, if the file is there, the user's alone, and well-formed. */
export function readCollectorAddress(logPath: string): CollectorAddress | undefined {
  let text: string;
  try {
    text = readChecked(collectorAddressPath(logPath), 1024).toString('utf8');
  } catch {
    return undefined;
  }
  const m = /^(\S+) (\d+)(?: (\d+))?\n?$/.exec(text);
  return m ? { url: m[1]!, pid: Number(m[2]), ...(m[3] ? { started: m[3] } : {}) } : undefined;
}

/** Whether the process the file names still runs — the same process (start time), not a pid reused since. */
export function isRunning(a: CollectorAddress): boolean {
  if (!(a.pid > 1)) return false;
  const now = processStartTime(a.pid);
  if (ownStart !== undefined) return now !== undefined && now === a.started;
  try {
    process.kill(a.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process the file names holds one of these sockets (their inodes, e.g. the listeners
 * on its port): doctor trusts what answers on the port only if it is that process (issue 29 item 5:
 * another user listening there while the collector was down was reported as the collector).
 */
export function holdsSocket(a: CollectorAddress, inodes: readonly number[]): boolean {
  // loaded here, not with the address file's path (launcher-guard.ts, doctor's launcher prestart): node:fs/promises and the /proc reader
  const held = (require('../model/socket-owner') as typeof import('../model/socket-owner')).socketInodesOf(a.pid);
  return inodes.some((i) => held.has(i));
}

/**
 * Refuses to start a second collector on a log another running collector writes: the second used
 * to start without a word and, when it stopped, remove the first's address file, sending every hook
 * to the slow path while doctor said ok (issue 22 item 5).
 */
export function refuseSecondCollector(logPath: string): void {
  const other = readCollectorAddress(logPath);
  if (other && other.pid !== process.pid && isRunning(other)) {
    throw new BeaconError('conflict', `another Beacon collector (pid ${other.pid}, ${other.url}) already writes ${logPath}: stop it first, or give this one another --log`);
  }
}

/**
 * Written whole or not at all (a launcher never reads half a URL), through a new file of an
 * unguessable name (O_EXCL: a symlink planted in a shared directory is not followed), then linked
 * into place only if no file is there (link fails on an existing name, unlike rename): a file a
 * running collector keeps is never replaced; a stale one (its process gone) is.
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
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, path);
        return;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
        refuseSecondCollector(logPath);
        unlinkSync(path); // stale: its collector is gone
      }
    }
  } catch (e) {
    if (isBeaconError(e)) throw e;
    throw new BeaconError('unavailable', `cannot write the collector address file ${path}: ${(e as Error).message}`);
  } finally {
    unlinkSync(tmp);
  }
}

/** Removes the file if it is still this collector's: never a file another collector wrote. */
export function removeCollectorAddress(logPath: string, url: string): void {
  const path = collectorAddressPath(logPath);
  try {
    if (readChecked(path, 1024).toString('utf8') === line(url)) unlinkSync(path);
  } catch {
    // already gone
  }
}
