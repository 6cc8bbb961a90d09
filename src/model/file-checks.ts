import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, type Stats } from 'node:fs';
import { BeaconError } from './errors';
import { shellQuote } from './shell-quote';

/**
 * Beacon's own directories and files are checked on every open the way ssh checks `~/.ssh`: the
 * owner is the user, nobody else may write them, a symlink is never followed where a file is
 * expected, and only regular files are read (opened `O_NOFOLLOW | O_NONBLOCK`, then `fstat`ed, so
 * a FIFO or a device cannot block or surprise the reader). Another local user who pre-creates
 * `~/.beacon/endpoint` (or makes it 0777) could otherwise replace the hook launcher, point
 * `events.db` at a file they read, or drop a spool segment that is ingested as if Beacon wrote it
 * (issue 22 item 1). Every refusal is one message: the path, what is wrong, and the fix.
 *
 * Here in model, not config, because the store (which opens the event log) ranks below config.
 */

export const myUid = (): number | undefined => (typeof process.getuid === 'function' ? process.getuid() : undefined);

const OWN_FILES_WHY = 'Beacon keeps events and secrets there, so (as ssh does for ~/.ssh) it must be yours alone';

/** The one refusal: names the path, what is wrong with it, why that matters, and the command that fixes it. */
export function unsafePath(path: string, problem: string, fix: string, why = OWN_FILES_WHY): BeaconError {
  return new BeaconError('unsafe_file', `refusing ${path}: ${problem}. ${why}. Fix: ${fix}`);
}

function judgeOwnerAndMode(path: string, st: Stats, what: 'directory' | 'file'): void {
  const uid = myUid();
  if (uid !== undefined && st.uid !== uid) {
    throw unsafePath(path, `the ${what} belongs to uid ${st.uid}, not to you (uid ${uid})`, `move it aside (mv ${shellQuote(path)} ${shellQuote(`${path}.untrusted`)}) and run the command again: Beacon creates its own`);
  }
  if ((st.mode & 0o022) !== 0) {
    throw unsafePath(path, `other users may write the ${what} (mode ${(st.mode & 0o777).toString(8)})`, `chmod go-w ${shellQuote(path)}`);
  }
}

/** Checks a directory Beacon keeps things in, when it exists: a real directory, the user's, nobody else may write it. */
export function checkPrivateDir(path: string): void {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if (st.isSymbolicLink()) throw unsafePath(path, 'it is a symbolic link where Beacon expects its own directory', `remove the link (rm ${shellQuote(path)}) and run the command again`);
  if (!st.isDirectory()) throw unsafePath(path, 'it is not a directory', `move it aside (mv ${shellQuote(path)} ${shellQuote(`${path}.untrusted`)})`);
  judgeOwnerAndMode(path, st, 'directory');
}

/** Creates a directory (0700, parents too) when missing, then checks it as checkPrivateDir does. */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  checkPrivateDir(path);
}

export interface OpenCheckedOptions {
  /** the file holds events: group/other permission bits are removed, and onTightened says so */
  secret?: boolean;
  /** called when the file's mode was tightened (it was readable by others) */
  onTightened?: (message: string) => void;
  /** the file holds a secret: readable by others, it is refused with this fix (it may have been read) */
  refuseReadableFix?: string;
  /** a file the user may link from elsewhere (config.json from a dotfiles checkout): the target is checked instead */
  followSymlink?: boolean;
}

/**
 * Opens `path` with `flags` plus O_NOFOLLOW and O_NONBLOCK, then checks what was opened: a regular
 * file, the user's, not writable by others. Returns the descriptor; the caller closes it.
 */
export function openChecked(path: string, flags: number, mode = 0o600, options: OpenCheckedOptions = {}): number {
  return openAndCheck(path, flags, mode, options).fd;
}

function openAndCheck(path: string, flags: number, mode: number, options: OpenCheckedOptions): { fd: number; st: Stats } {
  let fd: number;
  try {
    fd = openSync(path, flags | (options.followSymlink ? 0 : constants.O_NOFOLLOW) | constants.O_NONBLOCK, mode);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw unsafePath(path, 'it is a symbolic link where Beacon expects its own file', `remove the link (rm ${shellQuote(path)}) and run the command again`);
    if (code === 'ENXIO') throw unsafePath(path, 'it is not a regular file (a FIFO or a socket)', `rm ${shellQuote(path)}`);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw unsafePath(path, 'it is not a regular file (a FIFO, a device or a directory)', `rm ${shellQuote(path)}`);
    judgeOwnerAndMode(path, st, 'file');
    if (options.refuseReadableFix !== undefined && (st.mode & 0o077) !== 0) {
      throw unsafePath(path, `other users may read it (mode ${(st.mode & 0o777).toString(8)})`, options.refuseReadableFix);
    }
    if (options.secret && (st.mode & 0o077) !== 0) {
      fchmodSync(fd, st.mode & 0o700);
      options.onTightened?.(`${path} was readable by other users (mode ${(st.mode & 0o777).toString(8)}); Beacon made it ${(st.mode & 0o700).toString(8)}. Anyone who could read it may have read what it held.`);
    }
    return { fd, st };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** A checked file's content; one larger than `maxBytes` is refused (nothing Beacon reads this way is larger). */
export function readChecked(path: string, maxBytes: number, options: OpenCheckedOptions = {}): Buffer {
  const { fd, st } = openAndCheck(path, constants.O_RDONLY, 0o600, options);
  try {
    if (st.size > maxBytes) throw unsafePath(path, `it is ${st.size} bytes, more than the ${maxBytes} Beacon ever writes there`, `rm ${shellQuote(path)}`);
    const buf = Buffer.alloc(st.size);
    let n = 0;
    while (n < buf.length) {
      const r = readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) break;
      n += r;
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/**
 * A name Beacon renames or reads but never creates through (a rotated export, `runtime.jsonl.1`):
 * when something is there, it must be a regular file of the user's that nobody else may write,
 * judged without following a symlink, so a rotation never carries a planted link along. Missing:
 * false.
 */
export function checkOwnFileIfPresent(path: string): boolean {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return false;
  if (st.isSymbolicLink()) throw unsafePath(path, 'it is a symbolic link where Beacon expects its own file', `remove the link (rm ${shellQuote(path)}) and run the command again`);
  if (!st.isFile()) throw unsafePath(path, 'it is not a regular file (a FIFO, a device or a directory)', `move it aside (mv ${shellQuote(path)} ${shellQuote(`${path}.untrusted`)})`);
  judgeOwnerAndMode(path, st, 'file');
  return true;
}
