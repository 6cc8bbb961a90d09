import { constants as h2, type ServerHttp2Stream } from 'node:http2';
import type * as GrpcJs from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { BeaconError } from '../model/errors';
import type { InFlightBytes, Reservation } from './admission';
import { watchBodyPace, type BodyPace } from './read-body';

/** One call's request message as the meter saw it arrive. */
export interface MeteredMessage {
  /** the call's share of the in-flight budget: its DATA bytes so far; decompression and decoding grow it */
  reservation: Reservation;
  /** the grpc-encoding its compressed flag asks for (gzip, deflate…); undefined when it came uncompressed. grpc-js hands it over still compressed */
  contentEncoding?: string;
  /**
   * The handler takes the reservation over: from now on the handler returns it, not the stream's
   * close — a client that resets its stream mid-decompression must not free what is still being
   * allocated. False when the stream closed first (its budget is back): the call is not served.
   */
  claim(): boolean;
}

export interface StreamMeter {
  /** one of the server's interceptors (any place: it finds the call grpc-js made for the stream) */
  interceptor: GrpcJs.ServerInterceptor;
  /** the call's metered message, by the request metadata its handler receives */
  messageOf(metadata: GrpcJs.Metadata): MeteredMessage | undefined;
}

/**
 * The in-flight budget and the body pace for OTLP/gRPC, per HTTP/2 stream. grpc-js buffers a
 * message until it is whole (up to maxBodyBytes) and only then shows it to the service: 60 streams
 * declaring 20 MB and trickling held 1 GB unseen, and none was ever cut (issue 29 item 4). So
 * every DATA frame of a call is taken from the budget as it arrives, as an HTTP body's chunks are
 * (read-body.ts): over the budget, the call is answered RESOURCE_EXHAUSTED with RetryInfo and its
 * stream reset, which frees what grpc-js buffered. A stream whose request sends nothing for the
 * stall time, or has not ended by the deadline, is answered and reset too. The budget is returned
 * when the stream closes, or — once the handler has claimed the message — when the export's reply
 * is sent.
 *
 * A compressed message is handed to the handler still compressed: grpc-js would otherwise inflate
 * it before any of our code runs, where only its few compressed bytes were counted (60 gzip bombs
 * of 20 MB held 1.5 GB, review of issue 29 item 4). The handler inflates it as an HTTP body is
 * (body.ts): each decompressed chunk taken from the budget as it appears.
 */
export function meterGrpcStreams(grpc: typeof GrpcJs, budget: InFlightBytes, pace: BodyPace, statusOf: (e: BeaconError) => Partial<GrpcJs.StatusObject>, logger: Logger): StreamMeter {
  const messages = new WeakMap<GrpcJs.Metadata, MeteredMessage>();
  let unreachableLogged = false;
  const interceptor: GrpcJs.ServerInterceptor = (_method, call) => {
    const base = baseCallOf(call);
    const stream = base?.stream;
    let claimed = false;
    const message: MeteredMessage = { reservation: budget.open(), claim: () => (claimed = !stream?.closed && !message.reservation.released) };
    const intercepting: GrpcJs.ServerInterceptingCall = new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, proceed) => {
            if (!stream) return intercepting.sendStatus(statusOf(UNREACHABLE) as GrpcJs.StatusObject);
            messages.set(metadata, message);
            proceed(metadata);
          },
        }),
    });
    if (!base || !stream) {
      if (!unreachableLogged) logger.error({ transport: 'grpc' }, UNREACHABLE.message);
      unreachableLogged = true;
      return intercepting;
    }
    // Before any DATA arrives (grpc-js makes the interceptors with the call): grpc-js passes every message on as it came.
    const encoding = base.incomingEncoding;
    base.incomingEncoding = 'identity';
    /** Answers the call, unless it was answered already, and resets its stream: what grpc-js buffered for it goes. */
    const end = (e: BeaconError) => {
      if (!stream.headersSent) intercepting.sendStatus(statusOf(e) as GrpcJs.StatusObject);
      stream.close(h2.NGHTTP2_NO_ERROR);
    };
    const watch = watchBodyPace(pace, (why) => end(new BeaconError('bad_data', `request message ${why}: stream reset`)));
    let first = true;
    // After grpc-js's own listener (it was added when the call was made): the chunk is in its decoder now.
    stream.on('data', (chunk: Buffer) => {
      watch.noteData();
      // the gRPC message prefix: the compressed flag, then the length
      if (first && chunk.length > 0 && chunk[0] === 1) message.contentEncoding = encoding;
      first &&= chunk.length === 0;
      if (stream.headersSent) return; // answered (refused): grpc-js discards what still arrives
      try {
        message.reservation.grow(chunk.length);
      } catch (e) {
        end(e as BeaconError);
      }
    });
    stream.once('end', () => watch.stop());
    stream.once('close', () => {
      watch.stop();
      if (!claimed) message.reservation.release();
    });
    return intercepting;
  };
  return { interceptor, messageOf: (metadata) => messages.get(metadata) };
}

const UNREACHABLE = new BeaconError('internal', "OTLP/gRPC cannot reach the calls' HTTP/2 streams and encodings in this @grpc/grpc-js version, so it cannot meter them; OTLP/HTTP still works");

/** What the meter uses of grpc-js's base call: its HTTP/2 stream, and the grpc-encoding it would decompress messages with. */
interface BaseCall {
  stream: ServerHttp2Stream;
  incomingEncoding: string;
}

/**
 * The base call under a call. grpc-js has no public hook for a call's bytes as they arrive, nor a
 * way to receive a message still compressed; its base call keeps the stream as `stream` and the
 * request's encoding as `incomingEncoding`, and each interceptor's call wraps the one before as
 * `nextCall`. If a grpc-js version renames them, every call is refused (INTERNAL, logged once):
 * never served unmetered.
 */
export function baseCallOf(call: GrpcJs.ServerInterceptingCallInterface): BaseCall | undefined {
  type Layer = Partial<BaseCall> & { nextCall?: Layer };
  for (let layer: Layer | undefined = call as unknown as Layer; layer; layer = layer.nextCall) {
    const { stream } = layer;
    if (stream && typeof stream.close === 'function' && typeof stream.on === 'function' && 'headersSent' in stream) {
      return typeof layer.incomingEncoding === 'string' ? (layer as BaseCall) : undefined;
    }
  }
  return undefined;
}
