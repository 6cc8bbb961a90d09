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

export interface ReadBodyOptions {
  /** largest body kept */
  limit: number;
  /** the export's share of the in-flight budget; body bytes are taken from it as they are read */
  reservation: Reservation;
  /** throws when the export is refused before its body is read (shutting down, queue full) */
  admit(): void;
}

/**
 * Reads a request body into memory. Every refusal — refused up front, over the limit, or the
 * collector out of in-flight bytes — is raised only after the whole body has been read and
 * discarded (up to DRAIN_BYTES more), so the client always receives the answer.
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
    const settle = (e: Error | undefined, body?: Buffer) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      if (e) reject(e);
      else resolve(body!);
    };
    const tooLarge = () => new BeaconError('payload_too_large', `request body exceeds the limit of ${limit} bytes (maxBodyBytes)`);

    try {
      options.admit();
      if (declared > limit) refuse(tooLarge());
      else if (declared > 0) reservation.grow(declared);
    } catch (e) {
      refuse(e as Error);
    }
    if (refusal && declared > limit + DRAIN_BYTES) return settle(refusal);

    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (refusal) {
        if (received > limit + DRAIN_BYTES) settle(refusal);
        return;
      }
      if (received > limit) return refuse(tooLarge());
      if (!(declared >= 0)) {
        // chunked: no length up front, so the budget is taken chunk by chunk
        try {
          reservation.grow(chunk.length);
        } catch (e) {
          return refuse(e as Error);
        }
      }
      chunks.push(chunk);
    };
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
