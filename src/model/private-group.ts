import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';

/**
 * Whether a group is the user's alone: a user private group (as Debian and Ubuntu make, with umask
 * 002), so a directory of the user's that this group may write is still only the user's. The rule
 * trusts the group only when the account database proves nobody else is in it:
 *
 * - it is the user's primary group, and every group entry with its gid is named after the user and
 *   lists no other member (a second entry with the same gid counts: the C library gives its members
 *   the gid too);
 * - no other account has it as its primary group (`/etc/group` never lists those);
 * - every source nsswitch.conf names for passwd and group can be listed in full. Local files,
 *   compat and altfiles can, and so can systemd's userdb (its records are root's). LDAP, sssd,
 *   winbind and the like list only what they cache (sssd does not enumerate by default), so a
 *   member there cannot be ruled out: the group is not trusted.
 *
 * The entries are read with `getent passwd` and `getent group` (two process starts, about 10 ms,
 * once per process and only when a group-writable directory of the user's group is met), so what
 * is judged is what the C library answers, systemd's users included. Anything that cannot be read
 * means the group is not trusted: the refusal's fix (chmod g-w) costs the user nothing.
 */

/** The inputs of the rule, as text: kept apart from where they come from so tests can feed their own. */
export interface Accounts {
  /** `getent passwd`: name:password:uid:gid:gecos:home:shell, one a line */
  passwd: string;
  /** `getent group`: name:password:gid:member,member, one a line */
  group: string;
  /** /etc/nsswitch.conf */
  nsswitch: string;
}

/** Sources every entry of which `getent` lists (see above); anything else may hold members it does not show. */
const LISTABLE_SOURCES = new Set(['files', 'compat', 'altfiles', 'systemd']);

const fields = (text: string) => text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#')).map((l) => l.split(':'));

const namesOf = (users: string[]) => (users.length > 3 ? `${users.slice(0, 3).join(', ')} and ${users.length - 3} more` : users.join(', '));

/** The sources nsswitch.conf names for a database (the `[NOTFOUND=return]` actions left out); undefined when it has no line for it. */
function sourcesOf(nsswitch: string, database: string): string[] | undefined {
  const line = nsswitch.split('\n').map((l) => l.replace(/#.*/, '').trim()).find((l) => l.startsWith(`${database}:`));
  return line?.slice(database.length + 1).replace(/\[[^\]]*\]/g, ' ').split(/\s+/).filter(Boolean);
}

/**
 * Why `gid` is not the user's alone (`me`: their name and uid), or undefined when it is. The
 * answer is a phrase for a refusal: "<why>", after "through its group: ".
 */
export function whyGroupIsShared(gid: number, me: { name: string; uid: number; gid: number }, accounts: Accounts): string | undefined {
  if (gid !== me.gid) return `gid ${gid} is not your primary group`;
  for (const database of ['passwd', 'group']) {
    // No line for it: glibc's default is local files, but musl, or a libc we do not know, may differ.
    const sources = sourcesOf(accounts.nsswitch, database);
    if (!sources) return `nsswitch.conf names no source for ${database}, so Beacon cannot tell who else is in gid ${gid}`;
    const unlisted = sources.filter((s) => !LISTABLE_SOURCES.has(s));
    if (unlisted.length > 0) return `accounts may come from ${unlisted.join(', ')} (nsswitch.conf ${database}), which cannot be listed in full, so Beacon cannot tell who else is in gid ${gid}`;
  }
  const users = fields(accounts.passwd);
  const uidOf = new Map(users.map(([name = '', , uid = '']) => [name, uid]));
  const isMe = (name: string) => name === me.name || uidOf.get(name) === String(me.uid);
  const primary = users.filter(([, , uid, g]) => g === String(gid) && uid !== String(me.uid)).map(([name = '']) => name);
  if (primary.length > 0) return `gid ${gid} is also the primary group of ${namesOf(primary)}`;
  const entries = fields(accounts.group).filter(([, , g]) => g === String(gid));
  if (entries.length === 0) return `no group entry has gid ${gid}`;
  const misnamed = entries.map(([name = '']) => name).filter((name) => name !== me.name);
  if (misnamed.length > 0) return `gid ${gid} is named ${namesOf(misnamed)}, not after you (${me.name}), so it is not a private group of yours`;
  const members = entries.flatMap(([, , , list = '']) => list.split(',').map((m) => m.trim())).filter((m) => m !== '' && !isMe(m));
  if (members.length > 0) return `the group database lists ${namesOf([...new Set(members)])} in gid ${gid}`;
  return undefined;
}

function getent(database: string): string {
  const r = spawnSync('getent', [database], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 10_000 });
  if (r.error) throw r.error;
  // getent exits 0 when it listed the database (2: a key not found, which enumeration never gives).
  if (r.status !== 0) throw new Error(`getent ${database} exited ${r.status ?? r.signal}`);
  return r.stdout;
}

let cached: { gid: number; why: string | undefined } | undefined;

/** whyGroupIsShared for this process's user, with the machine's accounts; read once per process. */
export function whyMyGroupIsShared(gid: number): string | undefined {
  const myGid = process.getgid?.();
  const myUid = process.getuid?.();
  if (myGid === undefined || myUid === undefined || gid !== myGid) return `gid ${gid} is not your primary group`;
  if (cached?.gid === gid) return cached.why;
  let why: string | undefined;
  try {
    const accounts = { passwd: getent('passwd'), group: getent('group'), nsswitch: readFileSync('/etc/nsswitch.conf', 'utf8') };
    why = whyGroupIsShared(gid, { name: userInfo().username, uid: myUid, gid: myGid }, accounts);
  } catch (e) {
    why = `Beacon could not list the accounts to tell who else is in gid ${gid} (${(e as Error).message})`;
  }
  cached = { gid, why };
  return why;
}
