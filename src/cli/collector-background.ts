import { spawn } from 'node:child_process';
import { closeSync, constants, fstatSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { processStartTime } from '../config/collector-address';
import { COLLECTOR_NODE_FLAGS } from '../config/node-flags';
import { BeaconError } from '../model/errors';
import { ensurePrivateDir, openChecked } from '../model/file-checks';
import { runningCollector } from './setup-options';

/**
 * `beacon collector --detach` / `--stop`: the collector in the background where there is no systemd
 * user session (containers, WSL without systemd, a server over ssh) and no launchd. The started
 * collector is its own session (setsid: a closed terminal does not stop it); it writes its address
 * file beside the log once it listens, which is how `--stop`, `doctor`, `dashboard` and the hook
 * launcher find it. Its operational log goes to `<log>.collector.log` (0600). Nothing restarts it:
 * put the same command in ~/.profile or a `@reboot` crontab line to start it at login or boot.
 */
export const outputFile = (log: string) => `${log}.collector.log`;

const READY_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 35_000; // the collector stops within ~10 s; systemd's unit allows 30
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function detach(argv: string[], log: string, out: (s: string) => void): Promise<number> {
  const already = runningCollector(log);
  if (already) throw new BeaconError('unavailable', `a collector already writes ${log}, at ${already.url}: stop it first with beacon collector --stop --log ${log}`);
  // The directory first, then the file without following a link (issue 29 item 10a): a
  // <log>.collector.log another user planted as a symlink received the collector's output.
  ensurePrivateDir(dirname(log));
  const output = outputFile(log);
  const fd = openChecked(output, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o600, { secret: true, onTightened: (m) => process.emitWarning(m, 'BeaconWarning') });
  try {
    return await waitForChild(argv, log, output, fd, out);
  } finally {
    closeSync(fd);
  }
}

async function waitForChild(argv: string[], log: string, output: string, fd: number, out: (s: string) => void): Promise<number> {
  const args = [...COLLECTOR_NODE_FLAGS, process.argv[1]!, 'collector', ...argv.filter((a) => a !== '--detach')];
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', fd, fd] });
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (const deadline = Date.now() + READY_TIMEOUT_MS; Date.now() < deadline && exited === undefined; await sleep(50)) {
    const running = runningCollector(log);
    if (running && running.pid === child.pid) {
      child.unref();
      out(`collector running in the background: pid ${child.pid}, ${running.url}, writing ${log}`);
      out(`its log: ${output}; stop it with: beacon collector --stop${argv.includes('--log') ? ` --log ${log}` : ''}`);
      return 0;
    }
  }
  if (exited === undefined) child.kill('SIGTERM');
  const tail = tailOf(fd).trim().split('\n').slice(-3).join('\n');
  throw new BeaconError('unavailable', `the collector did not start (${exited === undefined ? 'not ready in 15 s' : `exit ${exited}`}); the end of ${output}:\n${tail}`);
}

/** The end of the file the child wrote, read through the descriptor that was checked (not the path again). */
function tailOf(fd: number): string {
  const size = fstatSync(fd).size;
  const buf = Buffer.alloc(Math.min(size, 64 * 1024));
  const n = readSync(fd, buf, 0, buf.length, size - buf.length);
  return buf.toString('utf8', 0, n);
}

export async function stopBackground(log: string, out: (s: string) => void): Promise<number> {
  const running = runningCollector(log);
  if (!running) {
    out(`no collector runs on ${log} (no live address file beside it)`);
    return 1;
  }
  const started = processStartTime(running.pid);
  process.kill(running.pid, 'SIGTERM');
  // Done when the process is gone, not when its address file is: the file goes first in the stop,
  // and the collector's last words ("collector stopped") come after the other parts have stopped.
  const gone = () => (started === undefined ? !runningCollector(log) : processStartTime(running.pid) !== started);
  for (const deadline = Date.now() + STOP_TIMEOUT_MS; Date.now() < deadline; await sleep(100)) {
    if (gone()) {
      out(`collector stopped (pid ${running.pid})`);
      return 0;
    }
  }
  throw new BeaconError('unavailable', `the collector (pid ${running.pid}) did not stop within ${STOP_TIMEOUT_MS / 1000} s`);
}
