import net from 'node:net';
import { readFileSync } from 'node:fs';
import { peerSockets, type Connection } from '../src/model/socket-owner';

/**
 * What the receiver's check of who sends (src/receiver/sender-check.ts) costs a new connection:
 * one lookup in /proc/net/tcp{,6} with N extra loopback connections open (2N sockets, beside
 * whatever else the machine has). Prints, per N: the table's size, the CPU and wall time of one
 * lookup (a random connection of the N), of a full pass (a connection that is not there), and of
 * 100 lookups in one pass (a burst of new connections). Linux only.
 *
 *   npm run build && node dist/bench/socket-lookup.js 10 1000 5000 9000
 */
async function measure(pairs: number): Promise<void> {
  const accepted: net.Socket[] = [];
  const server = net.createServer((s) => accepted.push(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const clients: net.Socket[] = [];
  for (let i = 0; i < pairs; i += 200) {
    await Promise.all(Array.from({ length: Math.min(200, pairs - i) }, () => new Promise<void>((r) => clients.push(net.connect(port, '127.0.0.1', () => r())))));
  }
  while (accepted.length < pairs) await new Promise((r) => setTimeout(r, 10));
  const lines = (path: string) => readFileSync(path, 'latin1').split('\n').length - 2;
  const sockets = lines('/proc/net/tcp') + lines('/proc/net/tcp6');
  const conn = (s: net.Socket): Connection => ({ local: { address: s.localAddress!, port: s.localPort! }, remote: { address: s.remoteAddress!, port: s.remotePort! } });
  const pick = () => conn(accepted[Math.floor(Math.random() * accepted.length)]!);
  const timed = async (n: number, lookups: () => Connection[]) => {
    const cpu0 = process.cpuUsage();
    const walls: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = process.hrtime.bigint();
      await peerSockets(lookups());
      walls.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    const cpu = process.cpuUsage(cpu0);
    walls.sort((a, b) => a - b);
    return { cpuMs: +((cpu.user + cpu.system) / 1000 / n).toFixed(2), wallP50Ms: +walls[Math.floor(n / 2)]!.toFixed(2), wallP95Ms: +walls[Math.floor(n * 0.95)]!.toFixed(2) };
  };
  const one = await timed(100, () => [pick()]);
  const full = await timed(10, () => [{ local: { address: '127.0.0.1', port }, remote: { address: '127.0.0.9', port: 1 } }]);
  const burst = await timed(5, () => Array.from({ length: 100 }, pick));
  console.log(JSON.stringify({ extraConnections: pairs, socketsInTables: sockets, oneLookup: one, fullPass: full, burstOf100: burst }));
  for (const c of clients) c.destroy();
  await new Promise((r) => server.close(r));
}

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number);
  for (const n of sizes.length > 0 ? sizes : [10, 1000, 5000]) await measure(n);
}

void main();
