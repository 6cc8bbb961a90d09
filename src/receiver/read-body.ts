import type { IncomingMessage } from 'node:http';
import { BeaconError } from '../model/errors';
import type { Reservation } from './admission';

/**
 * How far past the limit a body is still read (and thrown away) so that its sender gets the 413.
 * Answering before the body is in makes the kernel reset the connection when the socket closes
 * with unread data — about 4 times in 10 for clients without `Expect: 100-continue` (Node's fetch)
 * the client saw ECONNRESET instead of the answer. Beyond this, the answer is sent and the
 * connection closed (the client may then see a reset): reading gigabytes would cost more.
 */
export const DRAIN_BYTES = 64 * 1024 * 1024;

/**
 * A body that sends nothing for this long is cut (its connection closed, its budget returned), and
 * so is one still incomplete after BODY_DEADLINE_MS: seven connections trickling a byte every 3 s
 * used to hold the whole in-flight budget for minutes (issue 22 item 6). A 20 MiB body over
 * loopback takes well under a second; the deadline leaves room for a slow remote link. An
 * OTLP/gRPC request message is held to the same times (its stream reset: grpc-stream-meter.ts).
 */
export const BODY_STALL_MS = 10_000;
export const BODY_DEADLINE_MS = 60_000;

/** How slowly a body may arrive before it is cut; both transports' bodies (OTLP/HTTP, OTLP/gRPC) are watched alike. */
export interface BodyPace {
  /** no byte for this long: the body is cut (default BODY_STALL_MS) */
  stallMs?: number;
  /** the whole body not in after this long: the body is cut (default BODY_DEADLINE_MS) */
  deadlineMs?: number;
}

export interface ReadBodyOptions extends BodyPace {
  /** largest body kept */
  limit: number;
  /** the export's share of the in-flight budget; body bytes are taken from it as they arrive */
  reservation: Reservation;
  /** throws when the export is refused before its body is read (shutting down, queue full) */
  admit(): void;
}

export interface BodyWatch {
  /** a byte arrived */
  noteData(): void;
  /** the body is in (or gone): no cut */
  stop(): void;
}

/**
 * Calls `cut` once, with why, when the body sends nothing for `stallMs` or is still incomplete
 * `deadlineMs` after it began (its headers). The timer does not hold the process open.
 */
export function watchBodyPace(pace: BodyPace, cut: (why: string) => void): BodyWatch {
  const started = Date.now();
  let lastDataAt = started;
  const stallMs = pace.stallMs ?? BODY_STALL_MS;
  const deadlineMs = pace.deadlineMs ?? BODY_DEADLINE_MS;
  const watch = setInterval(() => {
    const now = Date.now();
    if (now - lastDataAt < stallMs && now - started < deadlineMs) return;
    clearInterval(watch);
    cut(now - lastDataAt >= stallMs ? `no byte for ${stallMs} ms` : `not complete after ${deadlineMs} ms`);
  }, Math.max(10, Math.min(stallMs, deadlineMs, 1000) / 4));
  watch.unref();
  return { noteData: () => (lastDataAt = Date.now()), stop: () => clearInterval(watch) };
}

/**
 * Reads a request body into memory. Every refusal — refused up front, over the limit, or the
 * collector out of in-flight bytes — is raised only after the whole body has been read and
 * discarded (up to DRAIN_BYTES more), so the client always receives the answer. The budget is
 * taken for what has arrived, never for what Content-Length promises: a header costs nothing to
 * send, so it must not be able to reserve memory (issue 22 item 6).
 */
export function readBody(req: IncomingMessage, options: ReadBodyOptions): Promise<Buffer> {
  const { limit, reservation } = options;
  const declared = req.headers['content-length'] === undefined ? NaN : Number(req.headers['content-length']);
  return new Promise<Buffer>((resolve, reject) => {
    let refusal: Error | undefined;
    let chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const refuse = (e: Error) => {
      refusal ??= e;
      chunks = [];
      reservation.release();
    };
    const tooLarge = () => new BeaconError('payload_too_large', `request body exceeds the limit of ${limit} bytes (maxBodyBytes)`);

    const onData = (chunk: Buffer) => {
      received += chunk.length;
      watch.noteData();
      if (refusal) {
        if (received > limit + DRAIN_BYTES) settle(refusal);
        return;
      }
      if (received > limit) return refuse(tooLarge());
      try {
        reservation.grow(chunk.length);
      } catch (e) {
        return refuse(e as Error);
      }
      chunks.push(chunk);
    };
    const settle = (e: Error | undefined, body?: Buffer) => {
      if (settled) return;
      settled = true;
      watch.stop();
      req.off('data', onData);
      if (e) reject(e);
      else resolve(body!);
    };

    // A body that stalls, or trickles past the deadline, is cut: its client gets no answer (it is
    // not reading one), and the reservation goes back with the connection's 'close'.
    const watch = watchBodyPace(options, (why) => {
      settle(new BeaconError('bad_data', `request body ${why}: connection closed`));
      req.socket?.destroy();
    });

    try {
      options.admit();
      if (declared > limit) refuse(tooLarge());
    } catch (e) {
      refuse(e as Error);
    }
    // Too far past the limit to drain (a Content-Length of 10^12): answer now, the connection closes.
    if (refusal && declared > limit + DRAIN_BYTES) return settle(refusal);

    req.on('data', onData);
    req.once('end', () => {
      if (refusal) return settle(refusal);
      if (declared >= 0 && received !== declared) return settle(new BeaconError('bad_data', `request body is ${received} bytes, Content-Length said ${declared}`));
      settle(undefined, Buffer.concat(chunks, received)); // a copy: never a view of a socket read buffer
    });
    req.once('error', (e) => settle(new BeaconError('bad_data', `request body not received whole: ${e.message}`)));
    req.once('close', () => settle(new BeaconError('bad_data', 'the client closed the connection before the body was received')));
  });
}
