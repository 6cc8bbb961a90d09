import { randomUUID } from 'node:crypto';
import { resolveEventLogPath } from '../../config/paths';
import { BeaconError } from '../../model/errors';
import { escapeControls } from '../../model/terminal';
import { redactValue } from '../../redact/sanitize';
import { DirectLogSink, isLockTrouble } from '../../ingest/direct-sink';
import { toRows } from '../../ingest/rows';
import type { EventRow } from '../../ingest/sink';
import { GooseStreamParser } from '../../sources/goose/stream-json';
import type { StreamEvent } from '../../model/harness-event';
import { LineSplitter } from '../../stream/lines';
import { streamRecord } from '../../sources/goose/stream-record';
import { expectPositional, parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configOption } from '../config-flags';

export const spec = {
  name: 'beacon stream',
  summary: 'turn goose stream-json output into harness events (and record them)',
  usage: 'goose [--format harness|beacon] [--log PATH] [--no-log] [--tee] [--session ID]',
  description: `Reads \`goose run --output-format stream-json\` on stdin. Prints normalized harness events, one JSON
object per line (--format harness, the default) or the Beacon records (--format beacon), and
records them in the event log (collection method "stream") unless --no-log. --tee prints goose's
own lines unchanged instead, so the adapter can sit in a pipeline unnoticed.`,
  options: {
    format: { type: 'string', arg: 'F', help: 'harness (default): harness events; beacon: the Beacon records' },
    log: configOption('log'),
    'no-log': { type: 'boolean', help: 'print only, record nothing' },
    tee: { type: 'boolean', help: "print goose's own lines unchanged instead of harness events" },
    session: { type: 'string', arg: 'ID', help: 'tag the events with this session id (goose prints none)' },
  },
  examples: ['goose run --output-format stream-json --text "fix the tests" | beacon stream goose', 'goose run --output-format stream-json --text "…" | beacon stream goose --tee | your-pipeline'],
  positionals: ['goose'],
  // it keeps recording when the reader of its stdout goes away
  ownsStdout: true,
} as const satisfies CommandSpec;

const BATCH = 200;
/** The log's lock is waited for at most this long per batch; beyond it the batch is spooled (--tee's passthrough keeps flowing). */
const STREAM_BUSY_TIMEOUT_MS = 500;

export type StreamIO = Pick<CommandIO, 'stdin' | 'stdout' | 'stderr' | 'env'>;

export async function run(argv: string[], io: StreamIO): Promise<number> {
  const parsed = parseCommand(spec, argv, (s) => void io.stdout.write(`${s}\n`));
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  expectPositional(spec, positionals[0], 'runtime');
  const format = values.format ?? 'harness';
  if (format !== 'harness' && format !== 'beacon') throw new BeaconError('usage', `--format must be harness or beacon, got ${format}`);

  let log: DirectLogSink | undefined;
  let logFailed = false;
  if (!values['no-log']) {
    log = new DirectLogSink(resolveEventLogPath(values.log, io.env), { busyTimeoutMs: STREAM_BUSY_TIMEOUT_MS });
    try {
      log.open();
    } catch (e) {
      // A busy log is fine (rows are spooled until it is free); anything else means no recording.
      // The stream still flows (a pipeline must not break); the failure is reported and the exit code says so.
      if (!isLockTrouble(e)) {
        io.stderr(`beacon stream: not recording: ${(e as Error).message}\n`);
        logFailed = true;
        log = undefined;
      }
    }
  }

  // Ids are scoped by --session, else by this run: two runs reusing goose's tool call ids never merge.
  const runId = randomUUID();
  const parser = new GooseStreamParser({ sessionId: values.session });
  const splitter = new LineSplitter();
  let rows: EventRow[] = [];
  let stdoutOpen = true;
  let stdoutFull = false;
  io.stdout.on('error', () => {
    stdoutOpen = false; // a closed pipe (| head): keep recording, stop printing
  });

  // Appends run one after another, in order; each batch is handed over whole. A busy log spools.
  let flushing: Promise<void> = Promise.resolve();
  const flushRows = (): Promise<void> => {
    if (!log || rows.length === 0) return flushing;
    const batch = rows;
    const sink = log;
    rows = [];
    flushing = flushing.then(async () => {
      try {
        await sink.append(batch);
      } catch (e) {
        io.stderr(`beacon stream: ${batch.length} events not recorded: ${(e as Error).message}\n`);
        logFailed = true;
      }
    });
    return flushing;
  };

  const write = (line: string) => {
    if (!io.stdout.write(`${escapeControls(line)}\n`)) stdoutFull = true;
  };

  const handle = (events: StreamEvent[]) => {
    for (const ev of events) {
      const rec = streamRecord(ev, values.session ?? parser.banner.sessionId, runId, parser.banner.workingDirectory);
      let json: string | undefined;
      if (rec) {
        const r = toRows([rec]);
        for (const x of r.rejected) io.stderr(`beacon stream: event ${x.action} not recorded: ${x.reason}\n`);
        if (r.rows.length > 0) {
          json = r.rows[0]!.record;
          if (log) rows.push(r.rows[0]!);
        }
      }
      if (!values.tee && stdoutOpen) {
        if (format === 'harness' && ev.harness) write(JSON.stringify(redactValue(ev.harness)));
        else if (format === 'beacon' && json) write(json);
      }
    }
    if (rows.length >= BATCH) void flushRows();
  };

  // Any input line is survivable: one that breaks the parser is reported (by number, never quoted) and skipped.
  let lineNo = 0;
  const handleLine = (line: Parameters<GooseStreamParser['line']>[0]) => {
    lineNo++;
    try {
      handle(parser.line(line));
    } catch (e) {
      io.stderr(`beacon stream: input line ${lineNo} skipped: ${(e as Error).message}\n`);
    }
  };

  // stdout's backpressure holds the input: a slow reader slows us down instead of growing our memory.
  const drained = async () => {
    if (!stdoutFull) return;
    stdoutFull = false;
    if (!stdoutOpen) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        for (const ev of ['drain', 'close', 'error']) io.stdout.removeListener(ev, done);
        resolve();
      };
      for (const ev of ['drain', 'close', 'error']) io.stdout.once(ev, done);
    });
  };

  const timer = setInterval(() => void flushRows(), 250);
  try {
    for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (values.tee && stdoutOpen && !io.stdout.write(buf)) stdoutFull = true;
      for (const line of splitter.push(buf)) handleLine(line);
      await drained();
    }
    for (const line of splitter.end()) handleLine(line);
    try {
      handle(parser.end());
    } catch (e) {
      io.stderr(`beacon stream: end of input: ${(e as Error).message}\n`);
    }
  } finally {
    clearInterval(timer);
    await flushRows();
    log?.close();
  }
  return logFailed ? 1 : 0;
}
