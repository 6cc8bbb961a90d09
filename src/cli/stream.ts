import { parseArgs } from 'node:util';
import { resolveEventLogPath } from '../config/paths';
import { BeaconError } from '../model/errors';
import { DirectLogSink } from '../ingest/direct-sink';
import { toRows } from '../ingest/rows';
import type { EventRow } from '../ingest/sink';
import { GooseStreamParser } from '../stream/goose-stream';
import type { StreamEvent } from '../stream/harness-event';
import { LineSplitter } from '../stream/lines';
import { streamRecord } from '../stream/to-record';

export const STREAM_USAGE = `beacon stream goose [--format harness|beacon] [--log PATH] [--no-log] [--tee] [--session ID]

Reads \`goose run --output-format stream-json\` on stdin. Prints normalized harness events, one JSON
object per line (--format harness, the default) or the Beacon records (--format beacon), and
records them in the event log (collection method "stream") unless --no-log. --tee prints goose's
own lines unchanged instead, so the adapter can sit in a pipeline unnoticed.`;

const BATCH = 200;

export interface StreamIO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

export async function runStream(argv: string[], io: StreamIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      format: { type: 'string' },
      log: { type: 'string' },
      'no-log': { type: 'boolean' },
      tee: { type: 'boolean' },
      session: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals[0] !== 'goose') throw new BeaconError('usage', `beacon stream: unsupported runtime "${positionals[0] ?? ''}" (supported: goose)`);
  const format = values.format ?? 'harness';
  if (format !== 'harness' && format !== 'beacon') throw new BeaconError('usage', `--format must be harness or beacon, got ${format}`);

  let log: DirectLogSink | undefined;
  let logFailed = false;
  if (!values['no-log']) {
    try {
      log = new DirectLogSink(resolveEventLogPath(values.log, io.env)).open();
    } catch (e) {
      // The stream still flows (a pipeline must not break); the failure is reported and the exit code says so.
      io.stderr(`beacon stream: not recording: ${(e as Error).message}\n`);
      logFailed = true;
    }
  }

  const parser = new GooseStreamParser({ sessionId: values.session });
  const splitter = new LineSplitter();
  let rows: EventRow[] = [];
  let stdoutOpen = true;
  io.stdout.on('error', () => {
    stdoutOpen = false; // a closed pipe (| head): keep recording, stop printing
  });

  // Appends run one after another, in order; each batch is handed over whole.
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
        if (!logFailed) io.stderr(`beacon stream: recording failed: ${(e as Error).message}\n`);
        logFailed = true;
      }
    });
    return flushing;
  };

  const handle = (events: StreamEvent[]) => {
    for (const ev of events) {
      const rec = streamRecord(ev, values.session);
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
        if (format === 'harness' && ev.harness) write(JSON.stringify(ev.harness));
        else if (format === 'beacon' && json) write(json);
      }
    }
    if (rows.length >= BATCH) void flushRows();
  };

  const write = (line: string) => {
    io.stdout.write(`${line}\n`);
  };

  const timer = setInterval(() => void flushRows(), 250);
  try {
    for await (const chunk of io.stdin as AsyncIterable<Buffer | string>) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (values.tee && stdoutOpen && !io.stdout.write(buf)) await new Promise((r) => io.stdout.once('drain', r));
      for (const line of splitter.push(buf)) handle(parser.line(line));
    }
    for (const line of splitter.end()) handle(parser.line(line));
    handle(parser.end());
  } finally {
    clearInterval(timer);
    await flushRows();
    log?.close();
  }
  return logFailed ? 1 : 0;
}
