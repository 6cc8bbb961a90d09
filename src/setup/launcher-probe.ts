import { spawn } from 'node:child_process';
import type { Check } from './doctor';
import { launcherChainProblem, sourceLauncherChecked } from './launcher-guard';
import { isExecutable } from '../model/executables';

/**
 * Beacon's launcher, checked as the hook command checks it, then run through that command's own
 * guard as an agent would (a minimal PATH); async, so doctor's other checks run beside its Node.js
 * start. Every agent's doctor calls this with Beacon's own launcher path (hooksLauncherPath), never
 * with a path a settings file names (issue 29 item 1): the caller reports a file naming another
 * launcher and runs nothing. `what` says whose hook commands these are ("hook commands").
 */
export async function probeLauncher(bin: string, o: { id: string; count: number; reinstall: string; what?: string }): Promise<Check> {
  const { id, count, reinstall } = o;
  const what = o.what ?? 'hook commands';
  const fix = `${reinstall} (rewrites the launcher for this Node.js and install)`;
  const unsafe = launcherChainProblem(bin);
  if (unsafe) {
    const [problem, fixIt] = unsafe.split(' Fix: ');
    return { id, status: 'fail', message: `the ${what} will not run the launcher, and doctor did not: ${problem}`, ...(fixIt ? { fix: fixIt } : {}) };
  }
  if (!isExecutable(bin)) return { id, status: 'fail', message: `${what.replace(/s$/, '')} runs ${bin}, which is not an executable file`, fix };
  const r = await (takeStarted(bin) ?? runLauncher(bin));
  const said = r.stdout.trim();
  if (r.status === 0 && /^beacon-hooks \S+/.test(said)) return { id, status: 'ok', message: `${count} ${what} run ${bin}, which answers (${said})` };
  const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').slice(0, 3).join(' | ')}` : said ? `, said "${said.slice(0, 80)}"` : ''}`;
  return { id, status: 'fail', message: `the hook launcher ${bin} cannot start its hook adapter (${why}): a hook the collector does not answer itself is lost`, fix };
}

interface LauncherRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

/** Runs started before their check was reached (prestartLauncher), by launcher path: each one taken once. */
const started = new Map<string, Promise<LauncherRun>>();

function takeStarted(bin: string): Promise<LauncherRun> | undefined {
  const run = started.get(bin);
  started.delete(bin);
  return run;
}

/**
 * Starts the launcher's run before doctor loads the modules of its other checks (issue 33: the run
 * is a second Node.js start, the longest of doctor's waits, and it began only after ~100 ms of
 * doctor's own module loading and file checks): probeLauncher then takes this run instead of
 * starting one. It runs only what probeLauncher would, after the same guards, and the caller starts
 * it only where probeLauncher will be reached (goose-checks.ts, prestartGooseLauncher).
 */
export function prestartLauncher(bin: string): void {
  if (started.has(bin) || launcherChainProblem(bin) || !isExecutable(bin)) return;
  started.set(bin, runLauncher(bin));
}

function runLauncher(bin: string): Promise<LauncherRun> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', `set -- --version; ${sourceLauncherChecked(bin)}`], { timeout: 10_000, env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d));
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    child.on('error', (error) => resolve({ status: null, signal: null, stdout, stderr, error }));
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}
