import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** A HEAD is one short line; a branch name longer than this is not one git would make. */
const MAX_HEAD_BYTES = 4096;
const BRANCH = /^[^\x00-\x20\x7f~^:?*[\\]{1,255}$/;

/**
 * The checked-out branch of the repository holding `dir`, read from .git/HEAD (no git process).
 * The directory comes from a hook payload, so what is there is anyone's (issue 22 item 2): `mkfifo
 * /tmp/X/.git/HEAD` made `readFileSync` block the collector's main thread. So a HEAD is read only if
 * it is a regular file (opened O_NONBLOCK | O_NOFOLLOW, then fstat: a FIFO, device or symlink is
 * skipped), at most 4 KiB of it, and only in a repository the user owns — git's own
 * `safe.directory` rule, so an ancestor `/tmp/.git` another user made names no one's branch.
 */
export function gitBranch(dir: string, env: NodeJS.ProcessEnv): string | undefined {
  if (/^(1|true|yes)$/i.test(env.BEACON_DISABLE_GIT_METADATA ?? '')) return undefined;
  let d = resolve(dir);
  for (let i = 0; i < 40; i++) {
    const head = headOf(join(d, '.git'));
    if (head !== undefined) {
      const m = /^ref:\s*refs\/heads\/(.+)$/.exec(head.trim());
      return m && BRANCH.test(m[1]!) ? m[1] : undefined; // a detached HEAD has no branch
    }
    const up = dirname(d);
    if (up === d) return undefined;
    d = up;
  }
  return undefined;
}

/** HEAD of the repository at `gitPath` (a .git directory, or a worktree's/submodule's ".git" file). */
function headOf(gitPath: string): string | undefined {
  const git = openOwned(gitPath, true);
  if (!git) return undefined;
  if (git.directory) return readOwnedFile(join(gitPath, 'HEAD'));
  // a worktree or submodule: ".git" is a file "gitdir: <path>"
  const m = /^gitdir:\s*(.+)$/m.exec(git.text);
  return m ? readOwnedFile(join(resolve(dirname(gitPath), m[1]!.trim()), 'HEAD')) : undefined;
}

function readOwnedFile(path: string): string | undefined {
  const f = openOwned(path, false);
  return f && !f.directory ? f.text : undefined;
}

/** Opens without blocking or following a link; a regular file's text (bounded) or "a directory"; anything else, or not the user's: undefined. */
function openOwned(path: string, directoryOk: boolean): { directory: true } | { directory: false; text: string } | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) return undefined;
    if (st.isDirectory()) return directoryOk ? { directory: true } : undefined;
    if (!st.isFile() || st.size > MAX_HEAD_BYTES) return undefined;
    const buf = Buffer.alloc(MAX_HEAD_BYTES);
    const n = readSync(fd, buf, 0, MAX_HEAD_BYTES, 0);
    return { directory: false, text: buf.toString('utf8', 0, n) };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
