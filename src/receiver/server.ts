import net from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { BeaconError, isBeaconError } from '../model/errors';
import type { QueuedEventSink } from '../ingest/sink';
import { healthReport, sendHealth } from '../store/health';
import { InFlightBytes, type Reservation } from './admission';
import { encodingOf, type Encoding } from './body';
import { dashboardNotFound, registerDashboard, type DashboardOptions } from './dashboard-routes';
import { decodeExport } from './decode';
import { installHostGuard } from './host-guard';
import { readBody } from './read-body';
import { MEDIA_TYPES, encodeExportResponse, encodeStatus } from './reply';
import { SIGNALS, signalAt } from './signals/registry';
import type { OtlpSignal } from './signals/signal';
import { STATUS_TABLE } from './status-table';
import { RefusalLog } from './refusal-log';

export interface ReceiverOptions {
  /** the collector's writer thread, or any queued sink */
  writer: QueuedEventSink;
  logger: Logger;
  maxBodyBytes: number;
  maxPendingExports: number;
  /** most spans (log records, data points) in one export; more → 413 */
  maxSpansPerExport: number;
  /** bytes all exports in the collector may hold at once (bodies, decompressed, decoded estimate); more → 429 */
  maxBytesInFlight: number;
  /** after close(): how long open connections may take before they are cut (default 10 s) */
  closeGraceMs?: number;
  /** more sections for /health from the parts the collector adds around the receiver (the hook route) */
  healthExtras?: () => Record<string, unknown>;
  /** names besides loopback the Host header may carry (config `allowedHosts`) */
  allowedHosts?: readonly string[];
  /** serve the dashboard at / (the collector does; tests of the OTLP path need not) */
  dashboard?: DashboardOptions;
}

export interface Receiver {
  app: FastifyInstance;
  /**
   * Shutdown as the README promises: no new connections from now on; every request already
   * received is answered (200 after its commit, or 503 + Retry-After), none is reset; resolves when
   * every connection is closed. The writer is closed after this, by the caller.
   */
  close(): Promise<void>;
  /** bytes held by exports in flight (admission), and exports being handled */
  inFlight(): { exports: number; bytes: number };
  stats: ReceiverStats;
}

/**
 * The receiver's counters on /health: exports, events stored and duplicates; per signal the items
 * received (`spans`, `logRecords`, `metricPoints`) and refused (`rejectedSpans`, `rejectedLogRecords`,
 * `rejectedDataPoints`, the partial-success names); `rejected` is all items refused.
 */
export type ReceiverStats = { exports: number; inserted: number; duplicates: number; rejected: number } & Record<string, number>;

function newReceiverStats(): ReceiverStats {
  const stats: ReceiverStats = { exports: 0, inserted: 0, duplicates: 0, rejected: 0 };
  for (const signal of SIGNALS) stats[signal.receivedCounter] = stats[signal.partialSuccessField] = 0;
  return stats;
}

const NON_POST = ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** The OTLP/HTTP receiver: POST /v1/traces, /v1/metrics, /v1/logs, protobuf or JSON, plain or compressed. */
export function buildReceiver(options: ReceiverOptions): Receiver {
  const { writer, logger } = options;
  // No bodyLimit: bodies are read by read-body.ts, which applies maxBodyBytes itself.
  const app = Fastify({ logger: false, return503OnClosing: false });
  const stats = newReceiverStats();
  const budget = new InFlightBytes(options.maxBytesInFlight);
  const limits = { maxBodyBytes: options.maxBodyBytes, maxItemsPerExport: options.maxSpansPerExport };
  let closing = false;
  let handling = 0;
  let lastRequestAt = 0;
  const reservations = new WeakMap<FastifyRequest, Reservation>();
  const refusals = new RefusalLog(logger);
  app.addHook('onClose', async () => refusals.flush());

  /** Refusals before the body is read; raised by the body reader only once the body is in (no reset). */
  const admit = (req: FastifyRequest) => {
    if (!signalAt(routePath(req))) return;
    if (closing) throw new BeaconError('unavailable', 'the collector is shutting down', { retryAfterSeconds: 1 });
    if (writer.pending >= options.maxPendingExports) {
      throw new BeaconError('overloaded', `${writer.pending} exports are waiting for the event log`, { retryAfterSeconds: 1 });
    }
  };

  // Bodies are read by us: refusals wait for the whole body, memory is taken from the in-flight
  // budget as it is read, decoding depends on the media type, decompression is ours (after-limit).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (req, payload, done) => {
    readBody(payload as never, { limit: options.maxBodyBytes, reservation: reservations.get(req)!, admit: () => admit(req) }).then(
      (body) => done(null, body),
      (e: Error) => done(e, undefined),
    );
  });

  const hostGuard = installHostGuard(app, options.allowedHosts ?? []); // first: a foreign Host reaches no route
  if (options.dashboard) registerDashboard(app, options.dashboard);

  app.addHook('onRequest', async (req, reply) => {
    handling++;
    lastRequestAt = Date.now();
    const reservation = budget.open();
    reservations.set(req, reservation);
    // 'close' comes after the reply is sent or when the client goes away: the budget is returned either way
    reply.raw.once('close', () => {
      handling--;
      reservation.release();
    });
  });

  // While stopping, every reply closes its connection: a keep-alive socket left open would hold
  // the shutdown for the client's whole keep-alive timeout.
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  for (const signal of SIGNALS) {
    app.post(signal.path, (req, reply) => handleExport(signal, req, reply));
    app.route({
      method: [...NON_POST],
      url: signal.path,
      handler: async () => {
        throw new BeaconError('method_not_allowed', '405 method not allowed, supported: [POST]');
      },
    });
  }

  app.get('/health', async (_req, reply) =>
    sendHealth(reply, healthReport({ writer, closing, queueBytes: budget.bytes, counters: { ...stats, bytes_in_flight: budget.bytes, host_refused: hostGuard.refused, ...options.healthExtras?.() } })));

  app.setNotFoundHandler(async (req, reply) => {
    if (options.dashboard && dashboardNotFound(req, reply)) return reply;
    const hint = req.method === 'POST' && req.url === '/' ? ' (OTLP exporters append /v1/traces to the endpoint; a per-signal endpoint must include it)' : '';
    throw new BeaconError('not_found', `404 page not found: ${req.method} ${req.url}${hint}`);
  });

  app.setErrorHandler(async (err: Error & { code?: string; statusCode?: number }, req, reply) => {
    const e = toBeaconError(err);
    const { http, grpc } = STATUS_TABLE[e.code];
    if (http >= 500) logger.error({ code: e.code, err: e.message, path: routePath(req) }, 'export failed');
    else refusals.note(http, e.code, routePath(req));
    const encoding: Encoding = encodingOf(req.headers['content-type']) ?? 'json';
    if (e.retryAfterSeconds !== undefined && (http === 429 || http === 503)) reply.header('retry-after', String(e.retryAfterSeconds));
    return reply.code(http).type(MEDIA_TYPES[encoding]).send(encodeStatus(encoding, grpc, e.message));
  });

  async function handleExport(signal: OtlpSignal, req: FastifyRequest, reply: FastifyReply) {
    const started = process.hrtime.bigint();
    const encoding = encodingOf(req.headers['content-type']);
    if (!encoding) {
      throw new BeaconError('unsupported_media_type', '415 unsupported media type, supported: [application/json, application/x-protobuf]');
    }
    if (req.body === undefined) admit(req); // a bodiless request never went through the body reader
    const raw = (req.body as Buffer | undefined) ?? Buffer.alloc(0);
    const decoded = await decodeExport(signal, encoding, raw, req.headers['content-encoding'], limits, reservations.get(req)!);
    const consumed = decoded.decoded === undefined ? { inserted: 0, duplicates: 0, rejected: 0, message: '' } : await signal.consume(decoded.decoded, writer, logger);
    stats.exports++;
    stats.inserted += consumed.inserted;
    stats.duplicates += consumed.duplicates;
    stats.rejected += consumed.rejected;
    stats[signal.receivedCounter]! += decoded.items;
    stats[signal.partialSuccessField]! += consumed.rejected;
    logger.debug({ signal: signal.name, encoding, bytes: raw.length, decodedBytes: decoded.decodedBytes, items: decoded.items, rejected: consumed.rejected, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'export');
    return reply.code(200).type(MEDIA_TYPES[encoding]).send(encodeExportResponse(signal, encoding, consumed.rejected, consumed.message));
  }

  let closed: Promise<void> | undefined;
  async function close(): Promise<void> {
    closing = true;
    // No new connections from here on (they are refused). The open ones stay open, unlike
    // http.Server#close, which also drops idle keep-alive sockets at once — and with them a request
    // the client has just sent on one. Every answer now closes its connection.
    if (app.server.listening) net.Server.prototype.close.call(app.server);
    const grace = options.closeGraceMs ?? 10_000;
    const deadline = Date.now() + grace;
    // Until what is in flight is answered, and no request came for a moment (a client that just
    // got a 503 on one socket may still send on another), then idle sockets are closed.
    while (Date.now() < deadline && (handling > 0 || Date.now() - lastRequestAt < 250)) await new Promise((r) => setTimeout(r, 25));
    const force = setTimeout(() => app.server.closeAllConnections(), Math.max(0, deadline - Date.now()));
    await app.close();
    clearTimeout(force);
  }

  return {
    app,
    stats,
    close() {
      closed ??= close();
      return closed;
    },
    inFlight: () => ({ exports: handling, bytes: budget.bytes }),
  };
}

function routePath(req: FastifyRequest): string {
  const q = req.url.indexOf('?');
  return q < 0 ? req.url : req.url.slice(0, q);
}

/** Fastify's own failures (an invalid Content-Type header) mapped onto Beacon's codes. */
function toBeaconError(err: Error & { code?: string; statusCode?: number }): BeaconError {
  if (isBeaconError(err)) return err;
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new BeaconError('unsupported_media_type', '415 unsupported media type, supported: [application/json, application/x-protobuf]');
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) return new BeaconError('bad_data', err.message);
  return new BeaconError('internal', err.message, { cause: err });
}
