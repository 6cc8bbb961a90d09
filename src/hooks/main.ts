import { parseArgs } from 'node:util';
import { resolveEventLogPath } from '../config/paths';
import { DirectLogSink } from '../ingest/direct-sink';
import { FALLBACK_REPLY, handleHook, isSubcommand } from './pipeline';
import { BLOCKING, SUBCOMMANDS } from './payload';

export interface HookIO {
  stdin: () => Promise<string>;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

/** A hook holds goose's turn: wait for the collector's lock at most this long, then give up (allow). */
const BUSY_TIMEOUT_MS = 3000;

/**
 * `beacon-hooks --platform goose --log PATH --config PATH [--cli PATH] <subcommand>`, event JSON on stdin.
 * Only the command line is read here; the pipeline is `handleHook`. Never breaks goose: whatever
 * goes wrong, blocking hooks still answer allow and the exit code is 0; the error goes to stderr.
 */
export async function runHook(argv: string[], io: HookIO): Promise<number> {
  let sink: DirectLogSink | undefined;
  let sub: string | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { platform: { type: 'string' }, log: { type: 'string' }, config: { type: 'string' }, cli: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    sub = positionals[0];
    if (!isSubcommand(sub)) throw new Error(`unknown subcommand "${sub ?? ''}" (expected ${SUBCOMMANDS.join(', ')})`);
    if ((values.platform ?? 'goose') !== 'goose') throw new Error(`unsupported platform "${values.platform}" (this adapter speaks goose)`);
    sink = new DirectLogSink(resolveEventLogPath(values.log, io.env), { busyTimeoutMs: BUSY_TIMEOUT_MS });
    const outcome = await handleHook(sub, await io.stdin(), { sink, env: io.env });
    for (const e of outcome.errors) io.stderr(`beacon-hooks: ${e}\n`);
    if (outcome.reply !== undefined) io.stdout(outcome.reply);
  } catch (e) {
    io.stderr(`beacon-hooks: ${(e as Error).message}\n`);
    // Without a known subcommand we cannot tell whether goose waits for a verdict: allow is safe on every event.
    if (!isSubcommand(sub) || BLOCKING.has(sub)) io.stdout(FALLBACK_REPLY);
  } finally {
    sink?.close();
  }
  return 0;
}
