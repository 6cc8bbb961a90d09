import type { StreamEvent } from '../model/harness-event';
import type { NormalizedEvent } from '../model/record';
import type { Line } from '../stream/lines';
import type { StreamMode } from '../stream/stream-mode';

/** One agent's JSON event stream read line by line into harness events (the specification's stream adapter). */
export interface StreamParser {
  line(line: Line | string): StreamEvent[];
  /** End of input: pending text, unanswered tool requests. */
  end(): StreamEvent[];
  /** the session id the stream itself named (Claude's init, Codex's thread.started…), once seen */
  readonly streamSessionId?: string;
  /** the run's working directory, where the stream names it */
  readonly workingDirectory?: string;
}

/** What a run's records are keyed by. */
export interface StreamRecordContext {
  /** --session, else the stream's own */
  sessionId?: string;
  /** this invocation: scopes ids when the stream names no session */
  runId: string;
  workingDirectory?: string;
}

/** `beacon stream <platform>`: an agent's stream format, its parser and how its events become Beacon records. */
export interface StreamAdapter {
  /** the agent's name on the command line and in records (the hook adapters' platform names) */
  platform: string;
  /** how the agent is run in its stream mode: the help text, and what the wrapper (`-- <command…>`) adds to a command lacking it */
  mode: StreamMode;
  example: string;
  createParser(options: { sessionId?: string }): StreamParser;
  record(ev: StreamEvent, ctx: StreamRecordContext): NormalizedEvent | undefined;
}
