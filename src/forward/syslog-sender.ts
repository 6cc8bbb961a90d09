import { readFileSync } from 'node:fs';
import { isIP, connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { SyslogDestination } from './destinations/syslog';
import type { StoredRow } from '../store/log/event-log';
import type { Outcome } from './outcome';
import { syslogFrame } from './syslog-message';

/**
 * RFC 5425 syslog over TLS (or plain TCP when configured), one connection per batch.
 *
 * Syslog over TCP has no application acknowledgement: a write that succeeded says only that the
 * bytes reached our kernel. So a batch counts as delivered when its session **closed cleanly**:
 * we send the frames and our close (TLS close_notify, then FIN), the receiver reads up to our end
 * and closes its side, and no error or reset came on the way. A receiver that dies after that may
 * still lose what it had not written; that is the most syslog over TCP can promise (RELP adds
 * real acknowledgements).
 */
export class SyslogSender {
  private readonly tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };

  constructor(private readonly dest: SyslogDestination) {
    if (dest.tls) {
      this.tls = {
        ca: dest.tls.ca ? readFileSync(dest.tls.ca) : undefined,
        cert: dest.tls.cert ? readFileSync(dest.tls.cert) : undefined,
        key: dest.tls.key ? readFileSync(dest.tls.key) : undefined,
      };
    }
  }

  async send(rows: readonly StoredRow[]): Promise<Outcome> {
    const frames = Buffer.concat(rows.map((r) => syslogFrame(r.record, r.tsNs, this.dest)));
    try {
      await this.session(frames);
      return { kind: 'ack', rejected: 0, message: '' };
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      // A certificate the receiver or we refuse will not fix itself by retrying quickly, but it
      // may be fixed on the other side: it is retried with the backoff like any network failure.
      return { kind: 'retry', message: `${this.dest.tls ? 'TLS' : 'TCP'} ${this.dest.host}:${this.dest.port}: ${err.code ? `${err.code} ` : ''}${err.message}` };
    }
  }

  close(): void {}

  /** Connects, writes every frame, closes, and resolves once both sides closed without error. */
  private session(frames: Buffer): Promise<void> {
    const { host, port, timeoutMs } = this.dest;
    return new Promise<void>((resolve, reject) => {
      let socket: Socket;
      let sawEnd = false;
      let settled = false;
      const done = (err?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err) {
          socket.destroy();
          reject(err);
        } else resolve();
      };
      const timer = setTimeout(() => done(new Error(`session not closed by the receiver within ${timeoutMs} ms`)), timeoutMs);
      const started = Date.now();
      let wrote = false;
      const write = () => {
        wrote = true;
        socket.end(frames);
      };
      if (this.tls) {
        // In TLS 1.3 our handshake completes before the receiver has checked our certificate; a
        // receiver that refuses it (rsyslog's x509/name) then closes the session, cleanly, without
        // reading a byte. So we wait as long as the handshake took (50 ms..1 s) before writing: a
        // session closed meanwhile is a refusal, not a delivery.
        socket = tlsConnect({ host, port, servername: isIP(host) ? undefined : host, ...this.tls }, () => {
          const settle = Math.min(1000, Math.max(50, Date.now() - started));
          setTimeout(() => {
            if (sawEnd || socket.destroyed) done(new Error('the receiver closed the session right after the TLS handshake (did it refuse our client certificate?)'));
            else write();
          }, settle);
        });
      } else {
        socket = tcpConnect({ host, port }, write);
      }
      socket.on('data', () => {}); // a receiver has nothing to say; drain so its close is seen
      socket.once('end', () => (sawEnd = true));
      socket.once('error', (e) => done(e));
      socket.once('close', (hadError) => {
        if (hadError) done(new Error('connection closed with an error'));
        else if (!wrote) done(new Error('the receiver closed the session right after the TLS handshake (did it refuse our client certificate?)'));
        else if (!sawEnd) done(new Error('connection closed before the receiver closed its side'));
        else done();
      });
    });
  }
}
