import { parseArgs } from 'node:util';
import { resolveEventLogPath } from '../config/paths';
import { DirectLogSink } from '../ingest/direct-sink';
import { hookAdapter } from '../sources/hook-registry';
import type { HookAdapter } from '../sources/hook-adapter';
import { lastWorkingDirectory } from '../store/queries/session-directory';
import { callPairing } from './call-pairing';
import { handleHook, neutralOr } from './pipeline';

export interface HookIO {
  stdin: () => Promise<string>;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

/** A hook holds the agent's turn: wait for the log's lock at most this long, then spool the events (answering at once). */
const BUSY_TIMEOUT_MS = 500;

/**
 * `beacon-hooks --platform AGENT --log PATH --config PATH [--cli PATH] <event>`, the payload on
 * stdin. The event is the command line's, as the installed entry names it (the agent's own event
 * name, or the subcommand an agent's plugin names), never only the payload's `hook_event_name`: Copilot's camelCase
 * payloads have none, and the entry Beacon wrote is what says which event it was installed for.
 * Only the command line is read here; the pipeline is `handleHook`. Never breaks the agent:
 * whatever goes wrong, it gets its neutral answer and the exit code is 0; the error goes to stderr.
 */
export async function runHook(argv: string[], io: HookIO): Promise<number> {
  let sink: DirectLogSink | undefined;
  let adapter: HookAdapter | undefined;
  let event = '';
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { platform: { type: 'string' }, log: { type: 'string' }, config: { type: 'string' }, cli: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    // A platform we do not speak gets no verdict and no record: its replies mean other things
    // (on Qwen Code or Claude Code an "allow" disarms the user's own permission prompts).
    adapter = hookAdapter(values.platform);
    if (!adapter) throw new Error(`unsupported platform "${values.platform ?? ''}"; nothing recorded, no verdict given`);
    event = positionals[0] ?? '';
    const direct = (sink = new DirectLogSink(resolveEventLogPath(values.log, io.env), { busyTimeoutMs: BUSY_TIMEOUT_MS }));
    // The launcher's per-invocation key: the same as on its fast-path attempt, so both land once.
    const key = io.env.BEACON_HOOK_KEY;
    const outcome = await handleHook(adapter, event, await io.stdin(), {
      sink: direct, env: io.env, ...(key ? { idempotencyKey: key } : {}),
      // read on the sink's own connection: one open of the log per hook, not two
      rememberedDir: (session) => lastWorkingDirectory(direct.eventLog(), session),
      pairCall: callPairing(() => direct.eventLog()),
    });
    for (const e of outcome.errors) io.stderr(`beacon-hooks: ${e}\n`);
    if (outcome.reply !== undefined) io.stdout(outcome.reply);
  } catch (e) {
    io.stderr(`beacon-hooks: ${(e as Error).message}\n`);
    const reply = adapter ? neutralOr(adapter, event) : undefined;
    if (reply !== undefined) io.stdout(reply);
  } finally {
    sink?.close();
  }
  return 0;
}
