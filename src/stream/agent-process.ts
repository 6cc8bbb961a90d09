import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { PassThrough, type Readable } from 'node:stream';

/** Signals Beacon passes on to the agent it runs, as the agent would have received them outside it. */
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * A signal this soon after the one passed on is the same interruption reaching Beacon twice — one
 * Ctrl-C from the terminal and again from a parent that forwards it (`npm run` does) — not the
 * user asking again: it is neither passed on nor taken as "stop now". A person pressing Ctrl-C
 * again after reading the first signal's note is slower than this.
 */
export const SAME_INTERRUPTION_MS = 500;

/**
 * After a stop-now, the agent's stdout is read this much longer once the agent is gone (what it
 * wrote before dying is in the pipe), then cut: a process the agent started may hold the pipe open
 * long after, and "stop now" must not wait for it.
 */
export const STOP_NOW_TAIL_MS = 200;

export interface AgentProcess {
  /** the agent's stdout, byte for byte (its stdin and stderr are Beacon's own) */
  stdout: Readable;
  /** Beacon's exit status for the agent's: its code, 128+n when a signal ended it, 127/126 when it could not run */
  status: Promise<number>;
  /** Beacon has read and recorded the stream: signals end Beacon as they would any process again */
  release(): void;
}

/**
 * Runs the agent (`beacon stream <agent> -- <command…>`) with Beacon's stdin and stderr, its stdout
 * piped to Beacon. The first SIGINT, SIGTERM or SIGHUP sent to Beacon goes on to the agent and does
 * not end Beacon: the agent decides, and Beacon reads its stream to the end and exits with its
 * status, as a shell reports a pipeline member (128+n for a death by signal n). A second one (see
 * SAME_INTERRUPTION_MS) means stop now, as docker compose's second Ctrl-C: the agent gets SIGKILL,
 * Beacon records what it had streamed and exits with the agent's status (137). Leaving the agent
 * running instead (npm's second Ctrl-C ends npm alone) would leave it writing to a pipe nobody
 * reads, running tools nobody sees, when the signal reached Beacon alone (a CI runner's cancel).
 */
export function runAgentProcess(argv: readonly string[], env: NodeJS.ProcessEnv, stderr: (s: string) => void): AgentProcess {
  const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['inherit', 'pipe', 'inherit'] });
  const stdout = new PassThrough();
  child.stdout!.pipe(stdout);
  let exited = false;
  let ended = false;
  let cutTimer: NodeJS.Timeout | undefined;
  const finished = () => {
    if (ended) return;
    ended = true;
    if (cutTimer) clearTimeout(cutTimer);
  };
  child.stdout!.once('end', finished);
  // a pipe that closes without an end (the agent could not run, a read error) still ends the stream Beacon reads
  child.stdout!.once('close', () => {
    if (!ended) stdout.end();
    finished();
  });
  child.stdout!.on('error', () => undefined);
  const cutAfterTail = () => {
    if (ended || cutTimer) return;
    cutTimer = setTimeout(() => {
      // its 'close' then ends the stream Beacon reads
      child.stdout!.unpipe(stdout);
      child.stdout!.destroy();
    }, STOP_NOW_TAIL_MS);
  };

  let firstAt: number | undefined;
  let stoppingNow = false;
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now();
    if (firstAt !== undefined && now - firstAt < SAME_INTERRUPTION_MS) return;
    if (firstAt === undefined && !exited) {
      firstAt = now;
      child.kill(signal);
      stderr(`beacon stream: ${signal} passed on to the agent; send it again to stop the agent now (SIGKILL)\n`);
      return;
    }
    if (stoppingNow) return;
    stoppingNow = true;
    if (!exited) {
      stderr(`beacon stream: ${signal} again: stopping the agent now (SIGKILL), recording what it streamed\n`);
      child.kill('SIGKILL');
    } else cutAfterTail();
  };
  for (const s of FORWARDED) process.on(s, onSignal);
  const release = () => {
    for (const s of FORWARDED) process.removeListener(s, onSignal);
  };

  const status = new Promise<number>((resolve) => {
    child.once('error', (e: NodeJS.ErrnoException) => {
      exited = true;
      stderr(`beacon stream: cannot run ${argv[0]}: ${e.code === 'ENOENT' ? 'not found' : e.message}\n`);
      // the shell's numbers: 127 not found, 126 found but not runnable
      resolve(e.code === 'ENOENT' ? 127 : 126);
    });
    child.once('exit', (code, signal) => {
      exited = true;
      if (stoppingNow) cutAfterTail();
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
  return { stdout, status, release };
}
