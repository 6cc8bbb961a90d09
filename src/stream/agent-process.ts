import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';

/** Signals Beacon passes on to the agent it runs, as the agent would have received them outside it. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface AgentProcess {
  /** the agent's stdout (its stdin and stderr are Beacon's own) */
  stdout: Readable;
  /** Beacon's exit status for the agent's: its code, 128+n when a signal ended it, 127/126 when it could not run */
  status: Promise<number>;
}

/**
 * Runs the agent (`beacon stream <agent> -- <command…>`) with Beacon's stdin and stderr, its stdout
 * piped to Beacon. While it runs, SIGINT, SIGTERM and SIGHUP sent to Beacon go on to the agent and
 * do not end Beacon: the agent decides, and Beacon reads its stream to the end and exits with its
 * status, as a shell reports a pipeline member (128+n for a death by signal n).
 */
export function runAgentProcess(argv: readonly string[], env: NodeJS.ProcessEnv, stderr: (s: string) => void): AgentProcess {
  const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['inherit', 'pipe', 'inherit'] });
  const forward = (signal: NodeJS.Signals) => {
    // the agent has gone already: nothing to pass on
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  for (const s of FORWARDED) process.on(s, forward);
  const status = new Promise<number>((resolve) => {
    const done = (n: number) => {
      for (const s of FORWARDED) process.removeListener(s, forward);
      resolve(n);
    };
    child.once('error', (e: NodeJS.ErrnoException) => {
      stderr(`beacon stream: cannot run ${argv[0]}: ${e.code === 'ENOENT' ? 'not found' : e.message}\n`);
      // the shell's numbers: 127 not found, 126 found but not runnable
      done(e.code === 'ENOENT' ? 127 : 126);
    });
    child.once('exit', (code, signal) => done(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
  return { stdout: child.stdout!, status };
}
