import type { Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import type * as GrpcJs from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { BeaconError } from '../model/errors';
import type { SenderCheckHealth } from '../model/health';
import { isLoopback } from '../model/loopback';
import { knownUid, peerSockets, socketTablesExist, type Connection, type TcpSocketEntry } from '../model/socket-owner';
import { STATUS_TABLE } from '../model/status-table';
import { baseCallOf } from './grpc-stream-meter';
import { RefusalLog } from './refusal-log';

/**
 * Exports only from the collector's own user (issue 29 item 7): without `otlpToken` any local user
 * could write events into the log — and, through size retention, push the user's own out. On Linux
 * the other end of a loopback connection is a socket in the same kernel table as ours
 * (/proc/net/tcp{,6}, model/socket-owner.ts), and its uid column says who made it. A connection
 * from another uid is refused (403 / PERMISSION_DENIED: `forbidden`, the one status table); root's
 * are taken, root can write the log anyway. Looked up once per connection (an OTLP exporter keeps
 * one open), off the event loop, and new connections arriving meanwhile share the next pass over
 * the table: a flood of connections costs one read of the table at a time, not one each.
 * `otlpAllowOtherUsers: true` turns it off; without the tables (macOS) it cannot run, and /health
 * says so (`senders.check: "unsupported"`): there the otlpToken is the defence.
 */
export class SenderCheck {
  readonly check: SenderCheckHealth['check'];
  private refused = 0;
  private readonly verdicts = new WeakMap<object, Promise<BeaconError | undefined>>();
  private readonly settled = new WeakMap<object, BeaconError | undefined>();
  private queue: { connection: Connection; resolve: (e: TcpSocketEntry | undefined) => void }[] = [];
  private scanning = false;
  private readonly warned = new Set<number>();
  private readonly refusals: RefusalLog;
  private readonly logger: Logger;

  /** `refusals`: the app's refusal log, which OTLP/gRPC's refusals join (HTTP's reach it through the app's error handler). */
  constructor(options: { allowOtherUsers: boolean; logger: Logger; refusals?: RefusalLog }, private readonly ownUid = process.geteuid?.()) {
    this.check = options.allowOtherUsers ? 'off' : ownUid === undefined || !socketTablesExist() ? 'unsupported' : 'on';
    this.logger = options.logger;
    this.refusals = options.refusals ?? new RefusalLog(options.logger);
  }

  health(): SenderCheckHealth {
    return { check: this.check, refused: this.refused };
  }

  /** OTLP/HTTP: the sender of the request's connection, looked up before its body is read (admit() refuses it after). */
  lookUpSocket(socket: Socket): Promise<void> {
    return this.lookUp(socket, connectionOf(socket));
  }

  /** Looks the sender of a connection up, once per `key` (its socket, its HTTP/2 session). */
  lookUp(key: object, connection: Connection | undefined): Promise<void> {
    if (this.check !== 'on') return Promise.resolve();
    let verdict = this.verdicts.get(key);
    if (!verdict) {
      const unknown = (why: string) => new BeaconError('forbidden', `the collector cannot tell which local user sent this export (${why}); it takes exports from its own user only`);
      verdict = connection ? this.judge(connection).catch((e: Error) => unknown(e.message)) : Promise.resolve(unknown('the connection has no address'));
      this.verdicts.set(key, verdict);
      void verdict.then((e) => this.settled.set(key, e));
    }
    return verdict.then(() => undefined);
  }

  /**
   * Throws the refusal of a connection looked up before (`lookUp` resolved), counting the export.
   * A connection never looked up is refused too: a caller that skipped the lookup must not let the
   * export through.
   */
  admit(key: object): void {
    if (this.check !== 'on') return;
    const refusal = this.settled.has(key) ? this.settled.get(key) : NOT_LOOKED_UP;
    if (!refusal) return;
    this.refused++;
    throw refusal;
  }

  /**
   * The OTLP/gRPC side: an interceptor, first in the server's list, that refuses a call from
   * another user at its headers. Its connection is cached on the HTTP/2 session when grpc-js shows
   * it (its base call's stream), else looked up for every call.
   */
  interceptor(grpc: typeof GrpcJs, statusOf: (e: unknown) => Partial<GrpcJs.StatusObject>): GrpcJs.ServerInterceptor {
    return (method, call) => {
      // the stream as the budget's meter finds it (one walk of grpc-js's layers, not a second guess at them)
      const session: object = baseCallOf(call)?.stream.session ?? {};
      const intercepting: GrpcJs.ServerInterceptingCall = new grpc.ServerInterceptingCall(call, {
        start: (next) =>
          next({
            onReceiveMetadata: (metadata, proceed) => {
              void this.lookUp(session, connectionOf(call.getConnectionInfo())).then(() => {
                try {
                  this.admit(session);
                  proceed(metadata);
                } catch (e) {
                  this.refusals.note(STATUS_TABLE.forbidden.http, 'forbidden', method.path);
                  intercepting.sendStatus(statusOf(e) as GrpcJs.StatusObject); // the one mapping of a BeaconError onto a gRPC status (grpc.ts)
                }
              });
            },
          }),
      });
      return intercepting;
    };
  }

  private async judge(connection: Connection): Promise<BeaconError | undefined> {
    const peer = await this.peerOf(connection);
    const uid = peer && knownUid(peer);
    if (uid === this.ownUid || uid === 0) return undefined;
    if (peer === undefined && !isThisMachine(connection.remote.address)) return undefined; // another machine (allowRemote): no local user to name
    if (uid === undefined) return new BeaconError('forbidden', 'the collector cannot tell which local user sent this export (its socket is closing or gone); it takes exports from its own user only');
    if (!this.warned.has(uid) && this.warned.size < 64) {
      this.warned.add(uid);
      this.logger.warn({ uid, collectorUid: this.ownUid }, 'OTLP exports from another local user refused (set otlpAllowOtherUsers to take them)');
    }
    return new BeaconError('forbidden', `this collector (uid ${this.ownUid}) takes OTLP exports from its own user only; this connection comes from uid ${uid} (otlpAllowOtherUsers)`);
  }

  /** One pass over the tables at a time; connections that arrive meanwhile wait for the next, together. */
  private peerOf(connection: Connection): Promise<TcpSocketEntry | undefined> {
    return new Promise((resolve) => {
      this.queue.push({ connection, resolve });
      void this.scan();
    });
  }

  private async scan(): Promise<void> {
    if (this.scanning) return;
    this.scanning = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        const peers = await peerSockets(batch.map((b) => b.connection)).catch(() => batch.map(() => undefined));
        batch.forEach((b, i) => b.resolve(peers[i]));
      }
    } finally {
      this.scanning = false;
    }
  }
}

const NOT_LOOKED_UP = new BeaconError('forbidden', 'the collector did not look up which local user sent this export; it takes exports from its own user only');

/** A connection's two sides, as node:net (and grpc-js's connection info) name them; undefined once it is closed. */
function connectionOf(s: { localAddress?: string; localPort?: number; remoteAddress?: string; remotePort?: number }): Connection | undefined {
  return s.localAddress && s.remoteAddress && s.localPort && s.remotePort
    ? { local: { address: s.localAddress, port: s.localPort }, remote: { address: s.remoteAddress, port: s.remotePort } }
    : undefined;
}

/** A loopback address or one of this machine's interfaces: a connection from it has its other socket in our tables. */
function isThisMachine(address: string): boolean {
  // node:net names a link-local peer with its zone (fe80::1%eth0), networkInterfaces() without it
  const a = address.replace(/^::ffff:/i, '').replace(/%.*$/, '');
  if (isLoopback(a)) return true;
  return Object.values(networkInterfaces()).some((list) => list?.some((i) => i.address === a));
}
