import { spawn, type ChildProcess } from 'node:child_process';
import { setOutput } from './output';
import { findOnPath } from '../model/executables';

/**
 * A pager on a terminal, as `git log` and `journalctl` have one (issue 24 item 8): a long listing
 * is read a page at a time, and quitting the pager ends the command. Only when stdout is a TTY;
 * `$BEACON_PAGER`, else `$PAGER`, else `less` (with `LESS=FRX` unless set: quit when the output fits
 * one screen, keep the text on the screen); `cat` or an empty value turns it off, as `--no-pager`.
 */
export interface Pager {
  /** ends the pager's input and waits for the user to quit it */
  done(): Promise<void>;
}

export function startPager(env: NodeJS.ProcessEnv, stdout: { isTTY?: boolean } = process.stdout): Pager | undefined {
  if (!stdout.isTTY) return undefined;
  const command = (env.BEACON_PAGER ?? env.PAGER ?? 'less').trim();
  if (command === '' || command === 'cat') return undefined;
  if (command === 'less' && !findOnPath('less', env.PATH)) return undefined; // no pager installed: plain output
  let child: ChildProcess;
  try {
    child = spawn('sh', ['-c', command], { stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', LV: '-c', ...env } });
  } catch {
    return undefined;
  }
  let ending = false;
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // the user quit the pager before the end: the command has nothing left to do (git exits so too)
  const quit = () => process.exit(0);
  child.stdin!.on('error', quit);
  child.once('exit', () => {
    if (!ending) quit();
  });
  setOutput(child.stdin!);
  return {
    async done() {
      ending = true;
      child.stdin!.end();
      await exited;
      setOutput(process.stdout);
    },
  };
}

