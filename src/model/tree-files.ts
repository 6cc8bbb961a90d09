import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, readlinkSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { myUid, unsafePath } from './file-checks';
import { whyMyGroupIsShared } from './private-group';
import { shellQuote } from './shell-quote';

/**
 * Files Beacon writes for other programs (an agent's settings file, goose's hooks.json and
 * config.yaml), in directories it did not make: a project checkout, `~/.gemini`, `~/.config`.
 * Another local user who can write one of those directories, or a repository that brings a
 * symlink, could otherwise have Beacon edit, replace or copy a file of the user's they chose
 * (issue 29 item 3). So, for every such file:
 *
 * - every directory from `/` down is the user's or root's, and nobody else may write it (the rule
 *   ssh applies to ~/.ssh; a sticky directory such as /tmp is fine: others cannot move what is
 *   the user's in it; a group that is the user's own private group counts as the user, when the
 *   account database proves nobody else is in it: model/private-group.ts);
 * - below `root` (the project directory) no component is a symbolic link; above it a link is
 *   followed only when the directory holding it passed the same check and the link is the user's
 *   or root's, so nobody else can have aimed it;
 * - the file itself is never a link, is a regular file, the user's, not writable by others, and
 *   has no second name (a hard link someone else made to a file of the user's);
 * - writes go to a new file (O_EXCL | O_NOFOLLOW, 0600, an unguessable name) in the checked
 *   directory, renamed over the old one, which keeps its mode; a backup is a new 0600 file of a
 *   name not yet taken.
 *
 * Node has no openat(), so the checks are on paths: an lstat walk, then an O_NOFOLLOW open. What
 * is left of the race between the two is closed by the first rule: only the user (or root) can
 * rename anything in a directory that passed it.
 */

export interface TreeOptions {
  /** below this directory (the project's) no component may be a symlink; default: the file's own directory */
  root?: string;
}

export interface TreeWriteOptions extends TreeOptions {
  /** the file holds a secret: written 0600 whatever the old file's mode */
  secret?: boolean;
  /** a new file's mode (the umask applies); an existing file keeps its own */
  newMode?: number;
}

const WHY = 'Another user could swap what Beacon writes there for a link to a file of yours (or read what it copies), so (as ssh does for ~/.ssh) it must be yours alone';
const MAX_LINKS = 40; // as the kernel's ELOOP limit

/**
 * Why others may write it, or undefined when only the user (and root) can: '' for the others' bit,
 * else why the group that may write it is not the user's own private group (model/private-group.ts).
 */
function whoElseMayWrite(st: Stats): string | undefined {
  if ((st.mode & 0o002) !== 0) return '';
  return (st.mode & 0o020) !== 0 ? whyMyGroupIsShared(st.gid) : undefined;
}

/** The refusal of a directory or file others may write: the mode, through whom, and the chmod that ends it. */
function refuseWritable(path: string, st: Stats, what: string, via: string) {
  const mode = (st.mode & 0o777).toString(8);
  const problem = `other users may write the ${what} (mode ${mode})${via ? `, through its group: ${via}` : ''}`;
  return unsafePath(path, problem, `chmod ${via ? 'g-w' : 'go-w'} ${shellQuote(path)}`, WHY);
}

const refuseLink = (path: string) =>
  unsafePath(path, 'it is a symbolic link where Beacon expects a directory or a file of yours',
    `remove the link (rm ${shellQuote(path)}) or put what it points at in its place, then run the command again (or make the change by hand)`,
    'A link there decides which of your files Beacon writes, and another user or a repository checkout may have put it there');

function judgeOwner(path: string, st: Stats, what: string, allowRoot: boolean): void {
  const uid = myUid();
  if (uid === undefined || st.uid === uid || (allowRoot && st.uid === 0)) return;
  throw unsafePath(path, `the ${what} belongs to uid ${st.uid}, not to you (uid ${uid})`, `run the command in a directory only you can change (or, if it should be yours: sudo chown ${uid} ${shellQuote(path)})`, WHY);
}

function judgeDir(path: string, st: Stats): void {
  judgeOwner(path, st, 'directory', true);
  // Sticky (/tmp): others may add entries but not move the user's, and every entry is judged in turn.
  if ((st.mode & 0o1000) !== 0) return;
  const via = whoElseMayWrite(st);
  if (via !== undefined) throw refuseWritable(path, st, 'directory', via);
}

function judgeFile(path: string, st: Stats): void {
  if (st.isSymbolicLink()) throw refuseLink(path);
  if (!st.isFile()) throw unsafePath(path, 'it is not a regular file (a FIFO, a device or a directory)', `move it aside (mv ${shellQuote(path)} ${shellQuote(`${path}.untrusted`)})`, WHY);
  judgeOwner(path, st, 'file', false);
  const via = whoElseMayWrite(st);
  if (via !== undefined) throw refuseWritable(path, st, 'file', via);
}

/**
 * A file Beacon reads or replaces has one name. Another is a hard link: where the kernel lets
 * anyone link a file they do not own (fs.protected_hardlinks=0), another user can give a file of
 * the user's a name in a directory they share (a sticky project root), and Beacon would copy its
 * content and mode there. Removing a name is harmless, so removeInTree does not ask.
 */
function judgeSingleName(path: string, st: Stats): void {
  if (st.nlink <= 1) return;
  // The fix makes no copy in place: in a directory others may add names to, a copy's name can be planted too.
  throw unsafePath(path, `it has ${st.nlink} names (hard links), so it may be a file of yours another user linked here`,
    `remove this name (rm ${shellQuote(path)}: the file keeps its other names) and run the command again; if its settings belong here, copy them into the new file by hand`,
    'Beacon would copy what that file holds, and its mode, into this directory');
}

/**
 * Walks `dir` from `/`, component by component, judging each directory (and, with `create`,
 * making the missing ones 0755). Returns the real path of `dir` and the directories made
 * (outermost first); undefined when a component is missing and `create` is off.
 */
function walkDir(dir: string, root: string | undefined, create: boolean): { real: string; created: string[] } | undefined {
  const target = resolve(dir);
  const top = resolve(root ?? dir);
  if (target !== top && !target.startsWith(top.endsWith(sep) ? top : top + sep)) throw new Error(`${target} is not below ${top}`);
  const topDepth = top.split(sep).filter(Boolean).length;
  const pending = target.split(sep).filter(Boolean).map((name, i) => ({ name, below: i >= topDepth }));
  let cur: string = sep;
  judgeDir(cur, lstatSync(cur));
  const created: string[] = [];
  let links = 0;
  for (let step = pending.shift(); step; step = pending.shift()) {
    if (step.name === '.') continue;
    if (step.name === '..') {
      cur = dirname(cur);
      continue;
    }
    const next = join(cur, step.name);
    let st = lstatSync(next, { throwIfNoEntry: false });
    if (!st) {
      if (!create) return undefined;
      try {
        mkdirSync(next, { mode: 0o755 });
        created.push(next);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      st = lstatSync(next);
    }
    if (st.isSymbolicLink()) {
      if (step.below || ++links > MAX_LINKS) throw refuseLink(next);
      judgeOwner(next, st, 'symbolic link', true);
      const to = readlinkSync(next);
      if (isAbsolute(to)) cur = sep;
      pending.unshift(...to.split(sep).filter(Boolean).map((name) => ({ name, below: false })));
      continue;
    }
    if (!st.isDirectory()) throw unsafePath(next, 'it is not a directory', `move it aside (mv ${shellQuote(next)} ${shellQuote(`${next}.untrusted`)})`, WHY);
    judgeDir(next, st);
    cur = next;
  }
  return { real: cur, created };
}

/** The file's content, undefined when it (or a directory above it) does not exist. */
export function readInTree(file: string, maxBytes: number, options: TreeOptions = {}): Buffer | undefined {
  const dir = walkDir(dirname(file), options.root, false);
  if (!dir) return undefined;
  const real = join(dir.real, basename(file));
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw refuseLink(file);
    if (code === 'ENXIO') throw unsafePath(file, 'it is not a regular file (a FIFO or a socket)', `move it aside (mv ${shellQuote(file)} ${shellQuote(`${file}.untrusted`)})`, WHY);
    throw e;
  }
  try {
    const st = fstatSync(fd);
    judgeFile(file, st);
    judgeSingleName(file, st);
    if (st.size > maxBytes) throw unsafePath(file, `it is ${st.size} bytes, more than the ${maxBytes} Beacon reads in a settings file`, 'edit it by hand', WHY);
    const buf = Buffer.alloc(st.size);
    let n = 0;
    for (let r = -1; n < buf.length && r !== 0; n += r) r = readSync(fd, buf, n, buf.length - n, null);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** A new file in the checked directory: O_EXCL | O_NOFOLLOW, so nothing already there (a planted link) is opened. */
function createNew(path: string, content: string | Buffer, mode: number, fixMode?: number): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    const buf = typeof content === 'string' ? Buffer.from(content) : content;
    for (let n = 0; n < buf.length;) n += writeSync(fd, buf, n, buf.length - n);
    if (fixMode !== undefined) fchmodSync(fd, fixMode);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the file whole: a new file beside it, renamed over it (a reader never sees half of it, a
 * link in its place is replaced, not followed). Returns the directories it made, outermost first.
 */
export function writeInTree(file: string, content: string | Buffer, options: TreeWriteOptions = {}): { created: string[] } {
  const dir = walkDir(dirname(file), options.root, true)!;
  const real = join(dir.real, basename(file));
  const old = lstatSync(real, { throwIfNoEntry: false });
  if (old) {
    judgeFile(file, old);
    judgeSingleName(file, old);
  }
  const keep = old ? old.mode & 0o7777 & (options.secret ? 0o700 : 0o7777) : undefined;
  const tmp = join(dir.real, `.${basename(file)}.${randomBytes(6).toString('hex')}.beacon-tmp`);
  try {
    createNew(tmp, content, keep !== undefined ? 0o600 : options.secret ? 0o600 : (options.newMode ?? 0o644), keep);
    renameSync(tmp, real);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* not made, or renamed already */
    }
    throw e;
  }
  return { created: dir.created };
}

/**
 * Keeps `content` (the file as it was) in `<file>.beacon-backup-<stamp>`, 0600, in a name no file
 * has yet: two installs in the same second get `<stamp>` and `<stamp>-2` (issue 29 item 10c).
 */
export function backupInTree(file: string, content: string | Buffer, now: Date, options: TreeOptions = {}): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const dir = walkDir(dirname(file), options.root, false);
  if (!dir) throw new Error(`${dirname(file)} is gone`);
  for (let n = 1; ; n++) {
    const name = `${basename(file)}.beacon-backup-${stamp}${n === 1 ? '' : `-${n}`}`;
    try {
      createNew(join(dir.real, name), content, 0o600, 0o600);
      return join(dirname(file), name);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 1000) throw e;
    }
  }
}

/** Removes the file (never what a link points at); false when it is not there. */
export function removeInTree(file: string, options: TreeOptions = {}): boolean {
  const dir = walkDir(dirname(file), options.root, false);
  const real = dir && join(dir.real, basename(file));
  const st = real && lstatSync(real, { throwIfNoEntry: false });
  if (!real || !st) return false;
  judgeFile(file, st);
  unlinkSync(real);
  return true;
}
