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
  /** the message came with the compressed flag: grpc-js hands over a decompressed copy beside those bytes */
  compressed: boolean;
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
 * when the stream closes (or the export's reply is sent).
 */
export function meterGrpcStreams(grpc: typeof GrpcJs, budget: InFlightBytes, pace: BodyPace, statusOf: (e: BeaconError) => Partial<GrpcJs.StatusObject>, logger: Logger): StreamMeter {
  const messages = new WeakMap<GrpcJs.Metadata, MeteredMessage>();
  let unreachableLogged = false;
  const interceptor: GrpcJs.ServerInterceptor = (_method, call) => {
    const stream = http2StreamOf(call);
    const message: MeteredMessage = { reservation: budget.open(), compressed: false };
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
    if (!stream) {
      if (!unreachableLogged) logger.error({ transport: 'grpc' }, UNREACHABLE.message);
      unreachableLogged = true;
      return intercepting;
    }
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
      if (first) message.compressed = chunk[0] === 1; // the gRPC message prefix: compressed flag, then length
      first = false;
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
      message.reservation.release();
    });
    return intercepting;
  };
  return { interceptor, messageOf: (metadata) => messages.get(metadata) };
}

const UNREACHABLE = new BeaconError('internal', "OTLP/gRPC cannot reach the calls' HTTP/2 streams in this @grpc/grpc-js version, so it cannot meter them; OTLP/HTTP still works");

/**
 * The HTTP/2 stream under a call. grpc-js has no public hook for a call's bytes as they arrive; its
 * base call keeps the stream as `stream`, and each interceptor's call wraps the one before as
 * `nextCall`. If a grpc-js version renames them, every call is refused (INTERNAL, logged once):
 * never served unmetered.
 */
function http2StreamOf(call: GrpcJs.ServerInterceptingCallInterface): ServerHttp2Stream | undefined {
  type Layer = { stream?: ServerHttp2Stream; nextCall?: Layer };
  for (let layer: Layer | undefined = call as unknown as Layer; layer; layer = layer.nextCall) {
    const { stream } = layer;
    if (stream && typeof stream.close === 'function' && typeof stream.on === 'function' && 'headersSent' in stream) return stream;
  }
  return undefined;
}
