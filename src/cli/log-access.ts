import { BeaconError } from '../model/errors';
import { parseTimeBound } from '../model/time';
import type { EventLog } from '../store/log/event-log';
import { inspectLog, logProblem } from '../store/log/log-file';
import { openReadOnlyLog, type ReadOnlyLog } from '../store/log/log-open';

export { inspectLog, logProblem };

/**
 * Opens the log read-only for a query command. Never creates a file or directory: a missing log is
 * `undefined` (the caller says "nothing recorded yet"), a directory or foreign file a clear error.
 */
export function openLogForReading(path: string): EventLog | undefined {
  if (!hasEvents(path)) return undefined;
  // Required here, not above: a command that reads the connection alone (openConnectionForReading) never loads the writer.
  const { EventLog } = require('../store/log/event-log') as typeof import('../store/log/event-log');
  return EventLog.open(path, { readonly: true });
}

/** `openLogForReading` for a command that only queries the connection: without the writer's modules and statements. */
export function openConnectionForReading(path: string): ReadOnlyLog | undefined {
  return hasEvents(path) ? openReadOnlyLog(path) : undefined;
}

function hasEvents(path: string): boolean {
  const state = inspectLog(path);
  if (state.kind === 'missing') return false;
  const problem = logProblem(path, state);
  if (problem) throw new BeaconError('log_incompatible', problem);
  return state.kind === 'file' && state.size > 0; // empty: being created by its first writer: nothing in it yet
}

export const noLogMessage = (path: string) =>
  `no event log at ${path} yet: nothing has been recorded there (is the collector running, and is this the log it writes? see beacon doctor)`;

/** `--since`/`--until` as ns, checked together: an inverted range is a mistake, not an empty answer. */
export function timeRange(since: string | undefined, until: string | undefined, utc: boolean): { sinceNs?: bigint; untilNs?: bigint } {
  const now = Date.now();
  const one = (flag: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const r = parseTimeBound(v, { now, utc });
    if ('error' in r) throw new BeaconError('usage', `${flag}: ${r.error}`);
    return r.ns;
  };
  const sinceNs = one('--since', since);
  const untilNs = one('--until', until);
  if (sinceNs !== undefined && untilNs !== undefined && sinceNs >= untilNs) {
    throw new BeaconError('usage', `--since ${since} is not before --until ${until}: the range is empty (durations count back from now: --since 2h --until 1h)`);
  }
  return { sinceNs, untilNs };
}
