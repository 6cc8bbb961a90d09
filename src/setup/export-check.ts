import type { ExportHealth } from '../model/health';
import type { Check } from './doctor';

/**
 * The runtime.jsonl export, from the collector's /health `export` entry: written, or refused by the
 * file checks (the message names the path, what is wrong and the fix), or failing to write. No
 * export configured (or an older collector that does not report it): no check.
 */
export function exportChecks(e: Partial<ExportHealth> | undefined): Check[] {
  if (!e || typeof e.path !== 'string') return [];
  const why = typeof e.lastError?.message === 'string' ? e.lastError.message : 'no reason given';
  if (e.state === 'refused') {
    return [{ id: 'export', status: 'fail', message: `the JSONL export is refused, nothing is written to it: ${why}`, fix: 'apply the fix above; the collector tries again every 250 ms and exports what the log stored meanwhile — while this collector runs: after a restart it starts from where the log ends then (events are not lost: beacon events --json --since exports them too)' }];
  }
  if (e.state === 'failing') {
    return [{ id: 'export', status: 'warn', message: `the JSONL export ${e.path} cannot be written now: ${why}`, fix: 'free space or fix the file; the collector retries, and events wait in the log' }];
  }
  return [{ id: 'export', status: 'ok', message: `exporting to ${e.path}` }];
}
