import { parseArgs } from 'node:util';
import { resolveEventLogPath } from '../config/paths';
import { DirectLogSink } from '../ingest/direct-sink';
import { lastWorkingDirectory } from '../store/queries/session-directory';
import { FALLBACK_REPLY, handleHook, isSubcommand } from './pipeline';
import { BLOCKING, SUBCOMMANDS } from '../sources/goose/hook-payload';

export interface HookIO {
  stdin: () => Promise<string>;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

/** A hook holds goose's turn: wait for the log's lock at most this long, then spool the events (answering at once). */
const BUSY_TIMEOUT_MS = 500;

/**
 * `beacon-hooks --platform goose --log PATH --config PATH [--cli PATH] <subcommand>`, event JSON on stdin.
 * Only the command line is read here; the pipeline is `handleHook`. Never breaks goose: whatever
 * goes wrong, blocking hooks still answer allow and the exit code is 0; the error goes to stderr.
 */
export async function runHook(argv: string[], io: HookIO): Promise<number> {
  let sink: DirectLogSink | undefined;
  let sub: string | undefined;
  let platformKnown = false;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { platform: { type: 'string' }, log: { type: 'string' }, config: { type: 'string' }, cli: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    // Another agent's hooks speak another protocol: on Qwen Code, for one, an "allow" disarms the
    // user's own permission prompts. A platform we do not speak gets no verdict and no record.
    if ((values.platform ?? 'goose') !== 'goose') throw new Error(`unsupported platform "${values.platform}" (this adapter speaks goose); nothing recorded, no verdict given`);
    platformKnown = true;
    sub = positionals[0];
    if (!isSubcommand(sub)) throw new Error(`unknown subcommand "${sub ?? ''}" (expected ${SUBCOMMANDS.join(', ')})`);
    const direct = (sink = new DirectLogSink(resolveEventLogPath(values.log, io.env), { busyTimeoutMs: BUSY_TIMEOUT_MS }));
    // The launcher's per-invocation key: the same as on its fast-path attempt, so both land once.
    const key = io.env.BEACON_HOOK_KEY;
    const outcome = await handleHook(sub, await io.stdin(), {
      sink: direct, env: io.env, ...(key ? { idempotencyKey: key } : {}),
      // read on the sink's own connection: one open of the log per hook, not two
      rememberedDir: (session) => lastWorkingDirectory(direct.eventLog(), session),
    });
    for (const e of outcome.errors) io.stderr(`beacon-hooks: ${e}\n`);
    if (outcome.reply !== undefined) io.stdout(outcome.reply);
  } catch (e) {
    io.stderr(`beacon-hooks: ${(e as Error).message}\n`);
    // Without a known subcommand we cannot tell whether goose waits for a verdict: allow is safe on every event.
    if (platformKnown && (!isSubcommand(sub) || BLOCKING.has(sub))) io.stdout(FALLBACK_REPLY);
  } finally {
    sink?.close();
  }
  return 0;
}
