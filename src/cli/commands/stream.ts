import { randomUUID } from 'node:crypto';
import { resolveEventLogPath } from '../../config/paths';
import { BeaconError } from '../../model/errors';
import { escapeControls } from '../../model/terminal';
import { redactValue } from '../../redact/sanitize';
import { toRows } from '../../ingest/rows';
import type { StreamEvent } from '../../model/harness-event';
import { LineSplitter, type Line } from '../../stream/lines';
import type { StreamAdapter } from '../../sources/stream-adapter';
import { STREAM_ADAPTERS, streamAdapter } from '../../sources/stream-registry';
import { runAgentProcess, SAME_INTERRUPTION_MS } from '../../stream/agent-process';
import { streamModeCommand, withStreamMode } from '../../stream/stream-mode';
import { expectPositional, parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configOption } from '../config-flags';
import { PipeOutput, StreamRecorder } from '../stream-recorder';

const AGENTS = STREAM_ADAPTERS.map((a) => a.platform);

export const spec = {
  name: 'beacon stream',
  summary: "turn an agent's JSON event stream (goose, Claude Code, Codex, Gemini CLI, Qwen Code…) into harness events (and record them)",
  usage: `${AGENTS.join('|')} [--format harness|beacon] [--log PATH] [--no-log] [--tee] [--session ID] [-- AGENT COMMAND…]`,
  description: `Reads an agent's headless JSON event stream on stdin:
${STREAM_ADAPTERS.map((a) => `  ${a.platform.padEnd(12)} ${streamModeCommand(a.mode)}`).join('\n')}
Prints normalized harness events, one JSON object per line (--format harness, the default) or the
Beacon records (--format beacon), and records them in the event log (collection method "stream")
unless --no-log. --tee prints the agent's own lines unchanged instead, so the adapter can sit in a
pipeline unnoticed. The session is the one the stream names (goose's banner; none with goose run -q)
unless --session; a run's usage joins that session's OTLP and hook records, counted once.
With -- AGENT COMMAND… Beacon runs the agent itself, adding the stream flags above that the
command lacks, passes its stdout through byte for byte (as --tee), passes SIGINT, SIGTERM and
SIGHUP on to it and exits with its status (128+n when signal n ended it). A second signal (after
${SAME_INTERRUPTION_MS} ms: sooner is the same one arriving twice) stops the agent now: SIGKILL, what it
streamed recorded, exit 137.`,
  options: {
    format: { type: 'string', arg: 'F', help: 'harness (default): harness events; beacon: the Beacon records' },
    log: configOption('log'),
    'no-log': { type: 'boolean', help: 'print only, record nothing' },
    tee: { type: 'boolean', help: "print the agent's own lines unchanged instead of harness events" },
    session: { type: 'string', arg: 'ID', help: 'tag the events with this session id (else the one the stream names)' },
  },
  examples: [...STREAM_ADAPTERS.map((a) => a.example), 'goose run -q --output-format stream-json --text "…" | beacon stream goose --tee | your-pipeline', 'beacon stream claude-code -- claude -p "fix the tests" | your-pipeline'],
  positionals: AGENTS,
  // it keeps recording when the reader of its stdout goes away
  ownsStdout: true,
} as const satisfies CommandSpec;


export type StreamIO = Pick<CommandIO, 'stdin' | 'stdout' | 'stderr' | 'env'>;

export async function run(argv: string[], io: StreamIO): Promise<number> {
  // `-- <agent command…>`: the words after the separator are the agent's, never Beacon's options
  const sep = argv.indexOf('--');
  const parsed = parseCommand(spec, sep < 0 ? argv : argv.slice(0, sep), (s) => void io.stdout.write(`${s}\n`));
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const adapter = streamAdapter(expectPositional(spec, positionals[0], 'agent'))!;
  const command = sep < 0 ? undefined : withStreamMode(adapter.mode, argv.slice(sep + 1), adapter.platform);
  if (command && values.format !== undefined) throw new BeaconError('usage', 'stream: with -- <command…> the agent\'s own stdout is passed through (--tee); --format is for a stream read on stdin');
  const format = values.format ?? 'harness';
  if (format !== 'harness' && format !== 'beacon') throw new BeaconError('usage', `--format must be harness or beacon, got ${format}`);

  const recorder = values['no-log'] ? undefined : StreamRecorder.open(resolveEventLogPath(values.log, io.env), io.stderr);
  const agent = command ? runAgentProcess(command, io.env, io.stderr) : undefined;
  const input = agent ? agent.stdout : (io.stdin as AsyncIterable<Buffer | string>);
  try {
    await readStream(input, adapter, io, recorder, { tee: values.tee === true || agent !== undefined, format, session: values.session });
  } finally {
    await recorder?.close();
    agent?.release();
  }
  // the wrapper is the agent to its caller: the agent's status, whatever the recording did (said on stderr)
  if (agent) return agent.status;
  return recorder?.failed ? 1 : 0;
}

/** The stream, line by line, into harness events and records; with `tee` its bytes go to stdout unchanged. */
async function readStream(input: AsyncIterable<Buffer | string>, adapter: StreamAdapter, io: StreamIO, recorder: StreamRecorder | undefined, o: { tee: boolean; format: 'harness' | 'beacon'; session?: string }): Promise<void> {
  // Ids are scoped by --session (else the stream's own), else by this run: two runs reusing goose's tool call ids never merge.
  const runId = randomUUID();
  const parser = adapter.createParser({ sessionId: o.session });
  const splitter = new LineSplitter();
  const out = new PipeOutput(io.stdout);
  const write = (line: string) => out.write(`${escapeControls(line)}\n`);

  const handle = (events: StreamEvent[]) => {
    for (const ev of events) {
      const rec = adapter.record(ev, { sessionId: o.session ?? parser.streamSessionId, runId, workingDirectory: parser.workingDirectory });
      let json: string | undefined;
      if (rec) {
        const r = toRows([rec]);
        for (const x of r.rejected) io.stderr(`beacon stream: event ${x.action} not recorded: ${x.reason}\n`);
        if (r.rows.length > 0) {
          json = r.rows[0]!.record;
          recorder?.add(r.rows[0]!);
        }
      }
      if (!o.tee && out.open) {
        if (o.format === 'harness' && ev.harness) write(JSON.stringify(redactValue(ev.harness)));
        else if (o.format === 'beacon' && json) write(json);
      }
    }
    recorder?.flushIfFull();
  };

  // Any input line is survivable: one that breaks the parser is reported (by number, never quoted) and skipped.
  let lineNo = 0;
  const handleLine = (line: Line) => {
    lineNo++;
    try {
      handle(parser.line(line));
    } catch (e) {
      io.stderr(`beacon stream: input line ${lineNo} skipped: ${(e as Error).message}\n`);
    }
  };

  const timer = setInterval(() => void recorder?.flush(), 250);
  try {
    for await (const chunk of input) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (o.tee) out.write(buf);
      for (const line of splitter.push(buf)) handleLine(line);
      await out.drained();
    }
    for (const line of splitter.end()) handleLine(line);
    try {
      handle(parser.end());
    } catch (e) {
      io.stderr(`beacon stream: end of input: ${(e as Error).message}\n`);
    }
  } finally {
    clearInterval(timer);
  }
}
