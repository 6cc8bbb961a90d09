import { randomBytes } from 'node:crypto';
import { closeSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { readChecked } from '../model/file-checks';

/**
 * The dashboard token the running collector really uses, beside its log (`<log>.dashboard-token`,
 * 0600, in the log's private directory like the hook token): a collector started with
 * BEACON_DASHBOARD_TOKEN or --config in another terminal, or by the service with its own
 * environment, has a token the `beacon dashboard` of this shell's config does not know, and its URL
 * then led to a 403 (issue 33). Written at the start, removed at the stop; absent while a collector
 * runs: it has no token.
 */
export function dashboardTokenPath(logPath: string): string {
  return `${logPath}.dashboard-token`;
}

/** Written whole through a new file of an unguessable name (O_EXCL: no planted link followed), renamed into place. */
export function writeDashboardToken(logPath: string, token: string | undefined): void {
  const path = dashboardTokenPath(logPath);
  if (token === undefined) {
    removeDashboardToken(logPath);
    return;
  }
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, token);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function removeDashboardToken(logPath: string): void {
  try {
    unlinkSync(dashboardTokenPath(logPath));
  } catch {
    // already gone
  }
}

/** The token file's content when it is the user's alone (model/file-checks.ts); undefined when absent or refused. */
export function readDashboardToken(logPath: string): string | undefined {
  try {
    return readChecked(dashboardTokenPath(logPath), 4096).toString('utf8');
  } catch {
    return undefined;
  }
}
