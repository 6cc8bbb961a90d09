import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { addressBytes, knownUid, listenerServes, listenersOn, peerSockets, socketInodesOf, socketTablesExist } from '../../src/model/socket-owner';

/** Both ends of one loopback connection: the server's accepted socket, the client's, and the listener. */
async function connection(listenHost: string, connectHost: string): Promise<{ accepted: net.Socket; client: net.Socket; server: net.Server; port: number }> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, listenHost, r));
  const port = (server.address() as net.AddressInfo).port;
  const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
  const client = net.connect(port, connectHost);
  await new Promise((r) => client.once('connect', r));
  return { accepted: await accepted, client, server, port };
}

const sides = (s: net.Socket) => ({ local: { address: s.localAddress!, port: s.localPort! }, remote: { address: s.remoteAddress!, port: s.remotePort! } });

describe('socket owners from /proc/net/tcp{,6}', () => {
  it('IP literals to bytes: IPv4, IPv6 with ::, a zone, an IPv4-mapped address; anything else is none', () => {
    assert.deepEqual([...addressBytes('127.0.0.1')!], [127, 0, 0, 1]);
    assert.deepEqual([...addressBytes('::1')!], [...Array(15).fill(0), 1]);
    assert.deepEqual([...addressBytes('[fe80::a:b%eth0]')!], [0xfe, 0x80, ...Array(10).fill(0), 0, 0xa, 0, 0xb]);
    assert.deepEqual([...addressBytes('::ffff:127.0.0.1')!], [...Array(10).fill(0), 0xff, 0xff, 127, 0, 0, 1]);
    assert.equal(addressBytes('localhost'), undefined);
  });

  for (const [listen, connect] of [['127.0.0.1', '127.0.0.1'], ['::1', '::1'], ['::', '127.0.0.1'], ['::', '::1']] as const) {
    it(`the peer of a connection to ${listen} from ${connect} is the client's socket: this process's uid and one of its inodes; the listener is found`, async (t) => {
      if (!socketTablesExist()) return t.skip('no /proc/net/tcp (not Linux)');
      const c = await connection(listen, connect);
      try {
        const [peer, back, nobody] = await peerSockets([sides(c.accepted), sides(c.client), { local: sides(c.accepted).local, remote: { address: '127.0.0.9', port: 9 } }]);
        assert.equal(peer && knownUid(peer), process.geteuid!());
        assert.ok(socketInodesOf(process.pid).has(peer!.inode), "the client socket is this process's");
        assert.equal(peer!.localPort, c.client.localPort);
        assert.equal(back!.localPort, c.port, 'seen from the client, the peer is the accepted socket');
        assert.equal(nobody, undefined, 'no such socket');
        const listeners = (await listenersOn(c.port)).filter((l) => listenerServes(l, connect, true));
        assert.equal(listeners.length, 1);
        assert.ok(socketInodesOf(process.pid).has(listeners[0]!.inode));
      } finally {
        c.client.destroy();
        c.accepted.destroy();
        c.server.close();
      }
    });
  }
});
