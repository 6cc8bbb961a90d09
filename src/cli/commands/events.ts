import { existsSync } from 'node:fs';
import { resolveEventLogPath } from '../../config/paths';
import { BeaconError } from '../../model/errors';
import { harnessOption, unknownHarnessHint } from '../../model/harness';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configOption } from '../config-flags';
import { FOLLOW_WIDTHS, JOINED_HEADER, JOINED_SHRINKABLE, TABLE_HEADER, fitWidths, formatRow, formatTable, joinedRow, summaryRow, terminalWidth } from '../format';
import { DIFF_LINES, diffLines } from '../diff-lines';
import { inspectLog, logProblem, openLogForReading, timeRange } from '../log-access';
import { writeLine } from '../output';
import { compactCells, shortId, shortTime } from '../table';

/** The compact layout's TOKENS: `600/98/12700/0` (in/out/cache r/w, `-` for none) as its total, `13,398`. */
const tokenTotal = (cell: string) => (cell === '' ? cell : groupDigits(cell.split('/').reduce((a, t) => a + (Number(t) || 0), 0)));
import { startPager } from '../pager';
import type { EventLog, ListFilter } from '../../store/log/event-log';
import { listJoined } from '../../store/queries/joined-events';
import { exportLine } from '../../store/maintenance/jsonl-export';
import { groupDigits } from '../../model/digits';

/**
 * The table's default window, as journalctl and git log keep a listing readable: the newest lines,
 * unless --since, --until or --limit say otherwise (--json is an export: whole unless limited).
 */
const DEFAULT_LINES = 1000;

export const spec = {
  name: 'beacon events',
  summary: 'list stored events (--follow: as they are committed)',
  usage: '[--log PATH] [--session ID] [--diff | --no-diff] [--harness H] [--action A] [--method M] [--tool-call ID] [--model M] [--since T] [--until T] [--limit N] [--raw] [--json] [--follow] [--utc] [--no-pager]',
  description: `Lists stored events in time order: one line per model call, prompt or other event, and one
line per tool call — its observations by the pre-tool and post-tool hooks, the OTLP execute_tool
span, the stream adapter and the policy joined by tool call id, at its first observation. SEEN BY
names the paths that saw it (pre-tool+post-tool+otlp), RESULT its outcome (ok, failed, denied,
unfinished: the pre-tool hook saw it and no path reported a result); under a write's line, the
diff a path recorded (with --session or --diff; --no-diff: none). The filters choose the events
and the calls (a call is listed when any of its observations matches, with all of them), and
--limit N keeps the newest N lines (without --since, --until or --limit: the newest ${DEFAULT_LINES};
--limit 0: all). --raw lists every stored record on its own line instead. On a terminal the
table and --json go through a pager ($BEACON_PAGER, $PAGER, else less; --no-pager: none).
T is a date or time (2026-11-30, 2026-11-30T09:00 — local time unless it carries a zone:
2026-11-30T09:00:00Z, …+02:00), a duration back from now (30m, 2h, 7d, 1h ago) or today,
yesterday, now. Times print in your local
zone with their UTC offset (--utc: in UTC). --json prints the matching records themselves, one per
line (JSONL), as stored, with the log's commit \`sequence\` first — the same lines as the
runtime.jsonl export: raw by nature. --follow keeps printing records as any writer (collector,
hooks, stream adapter) commits them, from now or from --since, one line each (raw: a call's later
observations arrive later); Ctrl-C stops.`,
  options: {
    log: configOption('log'),
    session: { type: 'string', arg: 'ID', help: "only this session (the agent's own session id)" },
    harness: { type: 'string', arg: 'H', help: 'only this agent (goose, claude-code or claude, codex, gemini-cli, qwen-code, opencode, copilot-cli…)' },
    action: { type: 'string', arg: 'A', help: 'only this event.action (model.invoked, command.executed, prompt.submitted, …)' },
    method: { type: 'string', arg: 'M', help: 'only this collection path: otlp, hook, stream or poll (beacon import) (a tool call: one of its records)' },
    'tool-call': { type: 'string', arg: 'ID', help: 'only this tool call id (both collection paths carry it)' },
    model: { type: 'string', arg: 'M', help: 'only model calls of this model' },
    since: { type: 'string', arg: 'T', help: 'events at or after T' },
    until: { type: 'string', arg: 'T', help: 'events before T' },
    limit: { type: 'string', arg: 'N', help: `the newest N lines (with --raw or --json: records); 0: all (default ${DEFAULT_LINES} for the table without --since/--until)` },
    diff: { type: 'boolean', help: `each write's recorded diff under its line (its first ${DIFF_LINES} lines); the default with --session` },
    'no-diff': { type: 'boolean', help: 'no diffs under the lines, with --session too' },
    'no-pager': { type: 'boolean', help: 'print straight to the terminal, without a pager' },
    raw: { type: 'boolean', help: 'every stored record on its own line: a tool call once per path that saw it' },
    json: { type: 'boolean', help: 'the matching Beacon records as JSONL, commit sequence first (always raw)' },
    follow: { type: 'boolean', short: 'f', help: 'keep printing records as they are committed (always raw)' },
    utc: { type: 'boolean', help: 'print times in UTC instead of the local zone' },
  },
  examples: [
    'beacon events --since 2h',
    'beacon events --session 20261130_1 --method hook',
    'beacon events --session 20261130_1 --no-diff',
    'beacon events --raw --tool-call toolu_01AbC',
    'beacon events --action model.invoked --model gpt-4o --since 2026-11-30 --until 2026-12-01',
    'beacon events --follow',
    'beacon events --json --since 7d > last-week.jsonl',
  ],
} as const satisfies CommandSpec;

const METHODS = ['otlp', 'hook', 'stream'];


/**
 * On a terminal, WHAT (the command line a reviewer reads) gets the room the other columns leave; when
 * that is less than this, WHAT moves to its own line under the row, in the whole width (issue 24 item 3).
 */
const WHAT_MIN_WIDTH = 40;

/** How often --follow looks for new commits: a primary-key range read, cheap enough to do often. */
const FOLLOW_POLL_MS = 100;

export async function run(argv: string[], { env, out, stderr: err }: Pick<CommandIO, 'env' | 'out' | 'stderr'>): Promise<number> {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values } = parsed;
  const path = resolveEventLogPath(values.log, env);
  const utc = values.utc === true;
  const { sinceNs, untilNs } = timeRange(values.since, values.until, utc);
  if (values.method !== undefined && !METHODS.includes(values.method)) throw new BeaconError('usage', `--method must be ${METHODS.join(', ')}, got ${values.method}`);
  let limit: number | undefined;
  if (values.limit !== undefined) {
    if (!/^\d+$/.test(values.limit)) throw new BeaconError('usage', `--limit must be a whole number, got ${values.limit}`);
    limit = Number(values.limit) === 0 ? undefined : Number(values.limit);
  }
  const windowed = values.limit === undefined && values.since === undefined && values.until === undefined && !values.json;
  if (windowed) limit = DEFAULT_LINES;
  const filter: ListFilter = { sessionId: values.session, harness: values.harness === undefined ? undefined : harnessOption(values.harness), action: values.action, method: values.method, toolCallId: values['tool-call'], model: values.model, sinceNs, untilNs };
  const width = terminalWidth(env);
  if (values.follow) return follow(path, filter, { json: values.json === true, utc, width });
  const log = openLogForReading(path);
  if (!log) {
    if (!values.json) out(`no events yet: ${path} does not exist (is the collector running? see beacon doctor)`);
    return 0;
  }
  const pager = values['no-pager'] ? undefined : startPager(env);
  let lines = 0;
  try {
    // Every time carries its offset (or Z with --utc): a daylight-saving change inside the list shows.
    let table: string | undefined;
    if (values.json || values.raw) {
      const rows = log.list({ ...filter, limit });
      if (values.json) {
        for (const r of rows) await writeLine(exportLine(r.seq, r.record));
        return 0;
      }
      lines = rows.length;
      if (rows.length) table = formatTable(compactCells([TABLE_HEADER, ...rows.map((r) => summaryRow(JSON.parse(r.record), r.tsNs, utc))], width, { 0: shortTime, 4: shortId, 6: tokenTotal }), width, undefined, { column: 5, minWidth: WHAT_MIN_WIDTH });
    } else {
      const items = listJoined(log, filter, limit);
      lines = items.length;
      // A session is read as a review of what the agent did, as `git log -p` reads a change: diffs shown.
      const diffs = values['no-diff'] !== true && (values.diff === true || values.session !== undefined);
      const under = diffs ? items.map((it) => diffLines(it)) : undefined;
      if (items.length) table = formatTable(compactCells([JOINED_HEADER, ...items.map((it) => joinedRow(it, utc))], width, { 0: shortTime, 5: shortId, 7: tokenTotal }), width, JOINED_SHRINKABLE, { column: 6, minWidth: WHAT_MIN_WIDTH }, under);
    }
    if (table === undefined) out(`no events match${values.harness === undefined ? '' : unknownHarnessHint(values.harness)}`);
    else for (const line of table.split('\n')) await writeLine(line);
  } finally {
    await pager?.done();
    log.close();
  }
  if (windowed && lines === DEFAULT_LINES) err(`beacon events: the newest ${groupDigits(DEFAULT_LINES)} lines; older ones with --since T or --limit N (--limit 0: all)\n`);
  return 0;
}

/**
 * `--follow`: new records in commit order (`seq`), whoever wrote them, without re-reading the log.
 * Starts at the end of the log, or at --since; waits for a log that does not exist yet (it never
 * creates one: it is a reader).
 */
async function follow(path: string, filter: ListFilter, opts: { json: boolean; utc: boolean; width?: number }): Promise<number> {
  let stop = false;
  const onSignal = () => {
    stop = true;
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.stdout.on('error', onSignal); // a closed pipe
  const sleep = () => new Promise((r) => setTimeout(r, FOLLOW_POLL_MS));
  const problem = logProblem(path, inspectLog(path));
  if (problem) throw new BeaconError('log_incompatible', problem);
  let log: EventLog | undefined;
  // A log that does not exist yet, or is still being created by its first writer (empty file): wait.
  while (!stop && !(existsSync(path) && (log = openLogForReading(path)))) await sleep();
  if (stop || !log) return 0;
  const widths = fitWidths([TABLE_HEADER], opts.width, undefined, opts.utc ? [24, ...FOLLOW_WIDTHS.slice(1)] : FOLLOW_WIDTHS);
  try {
    // The cursor is taken first: anything committed while the backlog prints comes after it.
    let cursor = log.maxSeq();
    if (!opts.json) await writeLine(formatRow(TABLE_HEADER, widths, opts.width));
    if (filter.sinceNs !== undefined) {
      for (const r of log.list(filter)) if (r.seq <= cursor) await print(r.seq, r.tsNs, r.record);
    }
    while (!stop) {
      const rows = log.list({ ...filter, afterSeq: cursor, order: 'seq', limit: 1000 });
      for (const r of rows) {
        await print(r.seq, r.tsNs, r.record);
        cursor = r.seq;
      }
      if (rows.length < 1000) await sleep();
    }
  } finally {
    log.close();
  }
  return 0;

  async function print(seq: bigint, tsNs: bigint, record: string) {
    await writeLine(opts.json ? exportLine(seq, record) : formatRow(summaryRow(JSON.parse(record), tsNs, opts.utc), widths, opts.width));
  }
}
