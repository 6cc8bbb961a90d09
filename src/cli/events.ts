import { parseArgs } from 'node:util';
import { resolveEventLogPath } from '../config/paths';
import { BeaconError } from '../model/errors';
import { parseTimeBound } from '../model/time';
import { EventLog } from '../store/event-log';
import { exportLine } from '../store/jsonl-export';
import { TABLE_HEADER, formatTable, summaryRow } from './format';
import { existsSync, statSync } from 'node:fs';

export const EVENTS_USAGE = `beacon events [--log PATH] [--session ID] [--since T] [--limit N] [--json] [--follow]

Lists stored events in time order. T is RFC 3339 (2026-11-30T09:00:00Z) or a duration back from now
(30m, 2h, 7d). --json prints one Beacon record per line (JSONL), as stored, with the log's commit
\`sequence\` first — the same lines as the runtime.jsonl export. --follow keeps
printing events as any writer (collector, hooks, stream adapter) commits them: from now, or from
--since; stop it with Ctrl-C.`;

/** How often --follow looks for new commits: a primary-key range read, cheap enough to do often. */
const FOLLOW_POLL_MS = 100;

export async function runEvents(argv: string[], env: NodeJS.ProcessEnv, out: (s: string) => void): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      log: { type: 'string' },
      session: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      follow: { type: 'boolean' },
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
  if (values.follow) return follow(path, { sessionId: values.session, sinceNs, json: values.json === true }, out);
  if (!existsSync(path)) {
    if (!values.json) out(`no events yet: ${path} does not exist (is the collector running? see README)`);
    return 0;
  }
  const log = EventLog.open(path, { readonly: true });
  try {
    const rows = log.list({ sessionId: values.session, sinceNs, limit });
    if (values.json) {
      for (const r of rows) out(exportLine(r.seq, r.record));
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

/**
 * `--follow`: new records in commit order (`seq`), whoever wrote them, without re-reading the log.
 * Starts at the end of the log, or at --since; waits for a log that does not exist yet.
 */
async function follow(path: string, opts: { sessionId?: string; sinceNs?: bigint; json: boolean }, out: (s: string) => void): Promise<number> {
  let stop = false;
  const onSignal = () => {
    stop = true;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.stdout.on('error', onSignal); // a closed pipe
  const sleep = () => new Promise((r) => setTimeout(r, FOLLOW_POLL_MS));
  // A log that does not exist yet, or is still being created by its first writer (empty file): wait.
  while (!stop && (!existsSync(path) || statSync(path).size === 0)) await sleep();
  if (stop) return 0;
  const log = EventLog.open(path, { readonly: true });
  try {
    // The cursor is taken first: anything committed while the backlog prints comes after it.
    let cursor = log.maxSeq();
    if (!opts.json) out(TABLE_HEADER.join('  '));
    if (opts.sinceNs !== undefined) {
      for (const r of log.list({ sessionId: opts.sessionId, sinceNs: opts.sinceNs })) if (r.seq <= cursor) print(r.seq, r.record);
    }
    while (!stop) {
      const rows = log.list({ afterSeq: cursor, sessionId: opts.sessionId, order: 'seq', limit: 1000 });
      for (const r of rows) {
        print(r.seq, r.record);
        cursor = r.seq;
      }
      if (rows.length < 1000) await sleep();
    }
  } finally {
    log.close();
  }
  return 0;

  function print(seq: bigint, record: string) {
    out(opts.json ? exportLine(seq, record) : summaryRow(JSON.parse(record)).join('  '));
  }
}
