import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { checkOtlpToken } from '../config/otlp-token';
import { BeaconError } from '../model/errors';
import type { ReceiverCounters } from '../model/health';
import type { QueuedEventSink } from '../ingest/sink';
import { InFlightBytes, type Reservation } from './admission';
import { encodingOf } from './body';
import { countExport, newReceiverCounters } from './counters';
import { decodeExport } from './decode';
import { readBody } from './read-body';
import type { RefusalLog } from './refusal-log';
import { SenderCheck } from './sender-check';
import { MEDIA_TYPES, encodeExportResponse } from './reply';
import { SIGNALS } from './signals/registry';
import type { OtlpSignal } from './signals/signal';

export interface OtlpReceiverOptions {
  /** where events go: the collector's writer thread, or any queued sink */
  sink: QueuedEventSink;
  logger: Logger;
  maxBodyBytes: number;
  maxPendingExports: number;
  /** most spans, log records or data points in one export; more → 413 (config `maxItemsPerExport`) */
  maxItemsPerExport: number;
  /** bytes all exports in the collector may hold at once (bodies, decompressed, decoded estimate); more → 429 */
  maxBytesInFlight: number;
  /** the collector is stopping: exports are refused with 503 + Retry-After */
  isClosing(): boolean;
  /** a body sending nothing this long, or incomplete after the deadline, is cut (read-body.ts's defaults otherwise) */
  bodyStallMs?: number;
  bodyDeadlineMs?: number;
  /** config `otlpToken`: when set, exports without `Authorization: Bearer <it>` get 401 */
  otlpToken?: string;
  /** config `otlpAllowOtherUsers`: when not set, exports from another local user's socket get 403 (sender-check.ts) */
  otlpAllowOtherUsers?: boolean;
  /** the app's refusal log: OTLP/gRPC's refusals of other users' calls are noted there too */
  refusals?: RefusalLog;
}

export interface OtlpReceiver {
  /**
   * POST /v1/traces, /v1/metrics, /v1/logs with their body reader and admission. Registered at the
   * app's root (not encapsulated): its body reader is the app's, so a body sent to a path that does
   * not exist is read under the same limits before the 404 is answered.
   */
  plugin: FastifyPluginCallback;
  /** the counters /health shows: every export, over OTLP/HTTP or OTLP/gRPC (receiver/grpc.ts counts into them too) */
  stats: ReceiverCounters;
  /** the one in-flight budget, which OTLP/gRPC exports take from as well */
  budget: InFlightBytes;
  /** bytes held by exports in flight (admission) */
  bytesInFlight(): number;
  /** who may send: the collector's own user (and root), checked per connection; OTLP/gRPC asks it too */
  senders: SenderCheck;
}

const NON_POST = ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;
export const NO_EXPORT = { inserted: 0, duplicates: 0, rejected: 0, message: '' };

/** The OTLP/HTTP receiver: one route per signal (src/receiver/signals/), protobuf or JSON, plain or compressed. It knows a sink, never the store. */
export function otlpReceiver(options: OtlpReceiverOptions): OtlpReceiver {
  const { sink, logger } = options;
  const stats = newReceiverCounters();
  const budget = new InFlightBytes(options.maxBytesInFlight);
  const limits = { maxBodyBytes: options.maxBodyBytes, maxItemsPerExport: options.maxItemsPerExport };
  const reservations = new WeakMap<FastifyRequest, Reservation>();
  const senders = new SenderCheck({ allowOtherUsers: options.otlpAllowOtherUsers === true, logger, refusals: options.refusals });

  /** Refusals before the body is read; raised by the body reader only once the body is in (no reset). */
  const admit = (req: FastifyRequest) => {
    if (!routedSignal(req)) return; // a body sent to no export route (a 404) is read under the same limits
    checkOtlpToken(options.otlpToken, req.headers.authorization);
    senders.admit(req.raw.socket); // looked up in onRequest
    if (options.isClosing()) throw new BeaconError('unavailable', 'the collector is shutting down', { retryAfterSeconds: 1 });
    if (sink.pending >= options.maxPendingExports) {
      throw new BeaconError('overloaded', `${sink.pending} exports are waiting for the event log`, { retryAfterSeconds: 1 });
    }
  };

  const plugin: FastifyPluginCallback = (app, _opts, done) => {
    // Bodies are read by us: refusals wait for the whole body, memory is taken from the in-flight
    // budget as it is read, decoding depends on the media type, decompression is ours (after-limit).
    // No bodyLimit: read-body.ts applies maxBodyBytes itself.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (req, payload, next) => {
      readBody(payload as never, { limit: options.maxBodyBytes, reservation: reservations.get(req)!, admit: () => admit(req), stallMs: options.bodyStallMs, deadlineMs: options.bodyDeadlineMs }).then(
        (body) => next(null, body),
        (e: Error) => next(e, undefined),
      );
    });
    app.addHook('onRequest', async (req, reply) => {
      const reservation = budget.open();
      reservations.set(req, reservation);
      // 'close' comes after the reply is sent or when the client goes away: the budget is returned either way
      reply.raw.once('close', () => reservation.release());
    });
    // The sender is looked up by the export route itself (its own onRequest), and admit() knows an
    // export by the route the router matched (its config): the router decodes the path (/v1/%74races
    // is /v1/traces), so a check that re-read req.url let such a request past the sender check and
    // the token (issue 29 item 7).
    const lookUpSender = async (req: FastifyRequest) => senders.lookUpSocket(req.raw.socket);
    for (const signal of SIGNALS) {
      const config: ExportRouteConfig = { otlpSignal: signal };
      app.post(signal.path, { config, onRequest: lookUpSender }, (req, reply) => handleExport(signal, req, reply));
      app.route({
        method: [...NON_POST],
        url: signal.path,
        handler: async () => {
          throw new BeaconError('method_not_allowed', '405 method not allowed, supported: [POST]');
        },
      });
    }
    done();
  };
  // What fastify-plugin does: the parsers and hooks above apply to the whole app, not to a child scope.
  (plugin as unknown as Record<symbol, boolean>)[Symbol.for('skip-override')] = true;

  async function handleExport(signal: OtlpSignal, req: FastifyRequest, reply: FastifyReply) {
    const started = process.hrtime.bigint();
    const encoding = encodingOf(req.headers['content-type']);
    if (!encoding) {
      throw new BeaconError('unsupported_media_type', '415 unsupported media type, supported: [application/json, application/x-protobuf]');
    }
    if (req.body === undefined) admit(req); // a bodiless request never went through the body reader
    const raw = (req.body as Buffer | undefined) ?? Buffer.alloc(0);
    const decoded = await decodeExport(signal, encoding, raw, req.headers['content-encoding'], limits, reservations.get(req)!);
    const consumed = decoded.decoded === undefined ? NO_EXPORT : await signal.consume(decoded.decoded, sink, logger);
    countExport(stats, signal, decoded.items, consumed);
    logger.debug({ signal: signal.name, encoding, bytes: raw.length, decodedBytes: decoded.decodedBytes, items: decoded.items, rejected: consumed.rejected, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'export');
    return reply.code(200).type(MEDIA_TYPES[encoding]).send(encodeExportResponse(signal, encoding, consumed.rejected, consumed.message));
  }

  return { plugin, stats, budget, bytesInFlight: () => budget.bytes, senders };
}

interface ExportRouteConfig {
  otlpSignal?: OtlpSignal;
}

/** The signal of the route that handles the request (the router's match), undefined for any other route and for a 404. */
function routedSignal(req: FastifyRequest): OtlpSignal | undefined {
  return (req.routeOptions.config as ExportRouteConfig).otlpSignal;
}

/** The request's path without its query, as sent (not decoded): for logs only, never to decide what a request may do. */
export function routePath(req: FastifyRequest): string {
  const q = req.url.indexOf('?');
  return q < 0 ? req.url : req.url.slice(0, q);
}
