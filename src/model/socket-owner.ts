import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { isIP } from 'node:net';
import { endianness } from 'node:os';

/**
 * Who owns a TCP socket on this machine, from the kernel's socket tables (Linux: /proc/net/tcp and
 * /proc/net/tcp6, readable by every user; one line per socket: local and remote address:port in
 * hex, state, uid, inode), and which process holds a socket (its inode among /proc/PID/fd's
 * `socket:[N]` links). The receiver asks it who sent an export (the client socket of a loopback
 * connection is in the same table as ours); doctor asks it who listens on the collector's port.
 * Where the tables do not exist (macOS) `socketTablesExist()` is false and nothing is known.
 */
const TABLES = { v4: '/proc/net/tcp', v6: '/proc/net/tcp6' } as const;

export function socketTablesExist(): boolean {
  return existsSync(TABLES.v4);
}

/** One side of a connection, as node:net names it (`socket.remoteAddress`, `socket.remotePort`). */
interface SocketEnd {
  address: string;
  port: number;
}

export interface TcpSocketEntry {
  /** the kernel's TCP state: 1 ESTABLISHED, 6 TIME_WAIT, 10 LISTEN, … */
  state: number;
  uid: number;
  /** 0 for a socket no process holds (orphaned, not yet accepted, time-wait) */
  inode: number;
  /** the local address as the table writes it (hex), to compare listeners */
  localHex: string;
  localPort: number;
  table: 'v4' | 'v6';
}

const TCP_LISTEN = 10;

/**
 * The uid an entry really names: a time-wait entry prints uid 0 and inode 0 whoever made the
 * socket, so "root" without an inode is no answer (a socket closed at once must not pass as root's).
 */
export function knownUid(e: TcpSocketEntry): number | undefined {
  return e.uid === 0 && e.inode === 0 ? undefined : e.uid;
}

/** A connection between two sockets, as node:net names its sides on one of them. */
export interface Connection {
  local: SocketEnd;
  remote: SocketEnd;
}

/**
 * The sockets at the other end of connections whose both ends are on this machine: for each, the
 * one whose local side is the connection's remote side and whose remote side is its local side;
 * undefined when it is not in the tables (the other end is another machine, or gone). One pass over
 * the tables serves them all, read off the event loop (the kernel writes the table as it is read:
 * the cost is its size), and stops once every one is found.
 */
export async function peerSockets(connections: readonly Connection[]): Promise<(TcpSocketEntry | undefined)[]> {
  const found: (TcpSocketEntry | undefined)[] = connections.map(() => undefined);
  for (const table of ['v4', 'v6'] as const) {
    const wanted = new Map<string, number[]>();
    connections.forEach((c, i) => {
      const key = found[i] ? undefined : peerKey(c, table);
      if (key) wanted.set(key, [...(wanted.get(key) ?? []), i]);
    });
    let left = wanted.size;
    if (left === 0) continue;
    await eachChunk(TABLES[table], (text) => {
      const take = (line: string, hits: number[]) => {
        for (const i of hits) found[i] = parseLine(line, table);
        return --left === 0;
      };
      // A few connections: each searched for (no string per line); many (a burst): each line looked up once.
      if (wanted.size <= 8) return [...wanted].some(([key, hits]) => found[hits[0]!] === undefined && lineWith(text, `: ${key} `, (line) => take(line, hits)));
      for (let start = 0, end = text.indexOf('\n'); end >= 0; start = end + 1, end = text.indexOf('\n', start)) {
        const line = text.slice(start, end);
        const hits = wanted.get(addressesOf(line));
        if (hits && take(line, hits)) return true;
      }
      return false;
    });
  }
  return found;
}

/** The peer's "local remote" fields as its table writes them, e.g. `0100007F:C350 0100007F:10E1`. */
function peerKey(c: Connection, table: 'v4' | 'v6'): string | undefined {
  const peerLocal = procForms(c.remote.address)?.[table];
  const peerRemote = procForms(c.local.address)?.[table];
  return peerLocal && peerRemote ? `${peerLocal}:${hexPort(c.remote.port)} ${peerRemote}:${hexPort(c.local.port)}` : undefined;
}

/** The line holding `needle`, if any, given to `use` (whose answer is returned). */
function lineWith(text: string, needle: string, use: (line: string) => boolean): boolean {
  const at = text.indexOf(needle);
  if (at < 0) return false;
  const end = text.indexOf('\n', at);
  return use(text.slice(text.lastIndexOf('\n', at) + 1, end < 0 ? undefined : end));
}

/** A line's "local remote" fields: after `sl:`, up to the state. */
function addressesOf(line: string): string {
  const start = line.indexOf(': ') + 2;
  return line.slice(start, line.indexOf(' ', line.indexOf(' ', start) + 1));
}

/** Every listening socket on `port`, in both tables. */
export async function listenersOn(port: number): Promise<TcpSocketEntry[]> {
  const field = `:${hexPort(port)} `;
  const out: TcpSocketEntry[] = [];
  for (const table of ['v4', 'v6'] as const) {
    await eachChunk(TABLES[table], (text) => {
      for (const line of text.split('\n')) {
        const e = line.includes(field) ? parseLine(line, table) : undefined;
        if (e && e.state === TCP_LISTEN && e.localPort === port) out.push(e);
      }
      return false;
    });
  }
  return out;
}

/**
 * Whether a listener can take a connection to `address` (an IP literal): bound to that address,
 * or to a wildcard (0.0.0.0, ::). With `loopback`, any loopback listener counts too: `localhost`
 * resolves to 127.0.0.1 and ::1, so an agent sending to it may reach either.
 */
export function listenerServes(e: TcpSocketEntry, address: string, loopback: boolean): boolean {
  const bound = hexBytes(e.localHex);
  const v4 = e.table === 'v4' ? bound : bound.subarray(0, 12).equals(V4_MAPPED) ? bound.subarray(12) : undefined;
  if (bound.every((b) => b === 0) || e.localHex === procForms(address)?.[e.table]) return true;
  return loopback && (v4 ? v4[0] === 127 : bound.equals(IPV6_LOOPBACK));
}

/** The socket inodes a process holds (its /proc/PID/fd links), empty when it is gone or not readable by us. */
export function socketInodesOf(pid: number): Set<number> {
  const inodes = new Set<number>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(Number(m[1]));
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/**
 * The processes holding any of these sockets (their inodes), in one pass over /proc, among those
 * whose /proc/PID/fd we may read: another user's are hidden unless we are root.
 */
export function processesHolding(inodes: readonly number[]): number[] {
  const wanted = new Set(inodes.filter((i) => i !== 0));
  if (wanted.size === 0) return [];
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const name of entries) {
    if (/^\d+$/.test(name) && [...socketInodesOf(Number(name))].some((i) => wanted.has(i))) pids.push(Number(name));
  }
  return pids;
}

// --- the tables' format ------------------------------------------------------------------------

/** "   3: 0100007F:10E1 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000  0 4242 …" */
function parseLine(line: string, table: 'v4' | 'v6'): TcpSocketEntry | undefined {
  const f = line.trim().split(/\s+/);
  if (f.length < 10 || !/^\d+:$/.test(f[0]!)) return undefined;
  const [localHex = '', localPort = ''] = f[1]!.split(':');
  return { state: parseInt(f[3]!, 16), uid: Number(f[7]), inode: Number(f[9]), localHex, localPort: parseInt(localPort, 16), table };
}

const CHUNK = 256 * 1024;

/**
 * The file in whole lines, chunk by chunk, until `visit` says stop. A missing table (IPv6 off, no
 * /proc) is an empty one.
 */
async function eachChunk(path: string, visit: (wholeLines: string) => boolean): Promise<void> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch {
    return;
  }
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let carry = '';
    for (;;) {
      const { bytesRead } = await file.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      const text = carry + buf.toString('latin1', 0, bytesRead);
      const last = text.lastIndexOf('\n');
      carry = text.slice(last + 1);
      if (last >= 0 && visit(text.slice(0, last + 1))) return;
    }
    if (carry) visit(`${carry}\n`);
  } finally {
    await file.close();
  }
}

// --- addresses as the tables write them ------------------------------------------------------------

const V4_MAPPED = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]);
const IPV6_LOOPBACK = Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * An address in each table's form: the kernel prints each 32-bit word of the address in the host's
 * byte order (`%08X`), so 127.0.0.1 is `0100007F` on x86. An IPv4 address (or an IPv4-mapped IPv6
 * one) has both forms, an IPv4 socket in tcp and an IPv6 socket speaking IPv4 in tcp6.
 */
function procForms(address: string): { v4?: string; v6: string } | undefined {
  const bytes = addressBytes(address);
  if (!bytes) return undefined;
  const mapped = bytes.length === 4 ? Buffer.concat([V4_MAPPED, bytes]) : bytes;
  const v4 = bytes.length === 4 ? bytes : bytes.subarray(0, 12).equals(V4_MAPPED) ? bytes.subarray(12) : undefined;
  return { v6: hex32s(mapped), ...(v4 ? { v4: hex32s(v4) } : {}) };
}

function hex32s(bytes: Buffer): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 4) s += (LITTLE_ENDIAN ? bytes.readUInt32LE(i) : bytes.readUInt32BE(i)).toString(16).toUpperCase().padStart(8, '0');
  return s;
}

/** hex32s read back: the address bytes of a table's hex. */
function hexBytes(hex: string): Buffer {
  const b = Buffer.alloc(hex.length / 2);
  for (let i = 0; i < b.length; i += 4) {
    const word = parseInt(hex.slice(i * 2, i * 2 + 8), 16);
    if (LITTLE_ENDIAN) b.writeUInt32LE(word, i);
    else b.writeUInt32BE(word, i);
  }
  return b;
}

function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, '0');
}

/** An IP literal's bytes: 4 for IPv4, 16 for IPv6 (a zone `%eth0` dropped); undefined for anything else. */
export function addressBytes(address: string): Buffer | undefined {
  const a = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const kind = isIP(a);
  if (kind === 4) return Buffer.from(a.split('.').map(Number));
  if (kind !== 6) return undefined;
  // a trailing dotted quad (::ffff:127.0.0.1) as its two 16-bit groups
  const text = a.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, p, q, r, s) => `${((+p << 8) | +q).toString(16)}:${((+r << 8) | +s).toString(16)}`);
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const fill = tail === undefined ? [] : Array<string>(8 - groups(head).length - groups(tail).length).fill('0');
  const out = Buffer.alloc(16);
  [...groups(head), ...fill, ...groups(tail)].forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}
