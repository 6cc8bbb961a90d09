import { parseArgs } from 'node:util';
import { resolveEventLogPath } from '../config/paths';
import { BeaconError } from '../model/errors';
import { parseTimeBound } from '../model/time';
import { EventLog } from '../store/event-log';
import { TABLE_HEADER, formatTable, summaryRow } from './format';
import { existsSync } from 'node:fs';

export const EVENTS_USAGE = `beacon events [--log PATH] [--session ID] [--since T] [--limit N] [--json]

Lists stored events in time order. T is RFC 3339 (2026-11-30T09:00:00Z) or a duration back from now
(30m, 2h, 7d). --json prints one Beacon record per line (JSONL), exactly as stored.`;

export function runEvents(argv: string[], env: NodeJS.ProcessEnv, out: (s: string) => void): number {
  const { values } = parseArgs({
    args: argv,
    options: {
      log: { type: 'string' },
      session: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  const path = resolveEventLogPath(values.log, env);
  const sinceNs = values.since === undefined ? undefined : parseTimeBound(values.since);
  if (values.since !== undefined && sinceNs === undefined) throw new BeaconError('usage', `--since: not a time or duration: ${values.since}`);
  let limit: number | undefined;
  if (values.limit !== undefined) {
    if (!/^\d+$/.test(values.limit)) throw new BeaconError('usage', `--limit must be a whole number, got ${values.limit}`);
    limit = Number(values.limit);
  }
  if (!existsSync(path)) {
    if (!values.json) out(`no events yet: ${path} does not exist (is the collector running? see README)`);
    return 0;
  }
  const log = EventLog.open(path, { readonly: true });
  try {
    const rows = log.list({ sessionId: values.session, sinceNs, limit });
    if (values.json) {
      for (const r of rows) out(r.record);
    } else if (rows.length === 0) {
      out('no events match');
    } else {
      out(formatTable([TABLE_HEADER, ...rows.map((r) => summaryRow(JSON.parse(r.record)))]));
    }
  } finally {
    log.close();
  }
  return 0;
}
