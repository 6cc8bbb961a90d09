import type { EventLog } from '../store/log/event-log';

/**
 * The event log opened read-only, its module loaded on the first call: the store loads
 * better-sqlite3 (~15 ms), and `beacon doctor` starts its probes (the hook launcher, the
 * collector) before it reads the log, not after loading it (issue 25).
 */
export function openLogReadonly(path: string, busyTimeoutMs?: number): EventLog {
  const { EventLog: Log } = require('../store/log/event-log') as typeof import('../store/log/event-log');
  return Log.open(path, { readonly: true, ...(busyTimeoutMs !== undefined ? { busyTimeoutMs } : {}) });
}
