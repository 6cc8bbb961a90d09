import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { BeaconError, isBeaconError } from '../model/errors';
import { BEACON_VERSION } from '../model/endpoint';
import type { QueuedEventSink } from '../ingest/sink';
import { decodeContent, encodingOf } from './body';
import { dashboardNotFound, registerDashboard, type DashboardOptions } from './dashboard-routes';
import { countJsonLogs, countJsonMetrics, decodeJsonTraces } from './decode-json';
import { countProtoLogs, countProtoMetrics, decodeProtoTraces } from './decode-proto';
import { installHostGuard } from './host-guard';
import { ingestTraces } from './ingest';
import { MEDIA_TYPES, encodeExportResponse, encodeStatus } from './reply';
import { SIGNAL_PATHS, type Encoding, type Signal } from './signals';
import { STATUS_TABLE } from './status-table';
import { RefusalLog } from './refusal-log';

export interface ReceiverOptions {
  /** the collector's writer thread, or any queued sink */
  writer: QueuedEventSink;
  logger: Logger;
  maxBodyBytes: number;
  maxPendingExports: number;
  /** names besides loopback the Host header may carry (config `allowedHosts`) */
  allowedHosts?: readonly string[];
  /** serve the dashboard at / (the collector does; tests of the OTLP path need not) */
  dashboard?: DashboardOptions;
  /** more sections for /health from the parts the collector adds around the receiver (the hook route) */
  healthExtras?: () => Record<string, unknown>;
}

export interface Receiver {
  app: FastifyInstance;
  /** stop taking exports: new ones get 503 + Retry-After while in-flight ones finish */
  beginShutdown(): void;
  stats: { exports: number; spans: number; inserted: number; duplicates: number; rejected: number; metricPoints: number; logRecords: number };
}

const NON_POST = ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** The OTLP/HTTP receiver: POST /v1/traces, /v1/metrics, /v1/logs, protobuf or JSON, plain or compressed. */
export function buildReceiver(options: ReceiverOptions): Receiver {
  const { writer, logger } = options;
  const app = Fastify({ logger: false, bodyLimit: options.maxBodyBytes, return503OnClosing: false });
  const stats = { exports: 0, spans: 0, inserted: 0, duplicates: 0, rejected: 0, metricPoints: 0, logRecords: 0 };
  let closing = false;
  const refusals = new RefusalLog(logger);
  app.addHook('onClose', async () => refusals.flush());

  // Bodies are taken raw: decoding depends on the media type, decompression is ours (after-limit).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  const hostGuard = installHostGuard(app, options.allowedHosts ?? []); // first: a foreign Host reaches no route
  if (options.dashboard) registerDashboard(app, options.dashboard);

  app.addHook('onRequest', async (req) => {
    if (req.method !== 'POST' || !(routePath(req) in SIGNAL_PATHS)) return;
    if (closing) throw new BeaconError('unavailable', 'the collector is shutting down', { retryAfterSeconds: 1 });
    if (writer.pending >= options.maxPendingExports) {
      throw new BeaconError('overloaded', `${writer.pending} exports are waiting for the event log`, { retryAfterSeconds: 1 });
    }
  });

  // While stopping, every reply closes its connection: a keep-alive socket left open would hold
  // the shutdown for the client's whole keep-alive timeout.
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  for (const [path, signal] of Object.entries(SIGNAL_PATHS)) {
    app.post(path, (req, reply) => handleExport(signal, req, reply));
    app.route({
      method: [...NON_POST],
      url: path,
      handler: async () => {
        throw new BeaconError('method_not_allowed', '405 method not allowed, supported: [POST]');
      },
    });
  }

  app.get('/health', async () => ({ status: closing ? 'stopping' : 'ok', version: BEACON_VERSION, pending_exports: writer.pending, ...stats, host_refused: hostGuard.refused, ...options.healthExtras?.() }));

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

  async function handleExport(signal: Signal, req: FastifyRequest, reply: FastifyReply) {
    const started = process.hrtime.bigint();
    const encoding = encodingOf(req.headers['content-type']);
    if (!encoding) {
      throw new BeaconError('unsupported_media_type', '415 unsupported media type, supported: [application/json, application/x-protobuf]');
    }
    const raw = (req.body as Buffer | undefined) ?? Buffer.alloc(0);
    const body = await decodeContent(raw, req.headers['content-encoding'], options.maxBodyBytes);
    let rejected = 0;
    let message = '';
    let items = 0;
    // An empty body is an export with no telemetry: success, in either encoding.
    if (body.length > 0) {
      if (signal === 'traces') {
        const spans = encoding === 'protobuf' ? decodeProtoTraces(body) : decodeJsonTraces(body);
        const r = await ingestTraces(spans, writer, logger);
        items = r.spans;
        rejected = r.rejected;
        message = r.message;
        stats.spans += r.spans;
        stats.inserted += r.inserted;
        stats.duplicates += r.duplicates;
        stats.rejected += r.rejected;
      } else if (signal === 'metrics') {
        items = encoding === 'protobuf' ? countProtoMetrics(body) : countJsonMetrics(body);
        stats.metricPoints += items;
      } else {
        items = encoding === 'protobuf' ? countProtoLogs(body) : countJsonLogs(body);
        stats.logRecords += items;
      }
    }
    stats.exports++;
    logger.debug({ signal, encoding, bytes: raw.length, decodedBytes: body.length, items, rejected, ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'export');
    return reply.code(200).type(MEDIA_TYPES[encoding]).send(encodeExportResponse(signal, encoding, rejected, message));
  }

  return {
    app,
    stats,
    beginShutdown() {
      closing = true;
    },
  };
}

function routePath(req: FastifyRequest): string {
  const q = req.url.indexOf('?');
  return q < 0 ? req.url : req.url.slice(0, q);
}

/** Fastify's own failures (body too large, unreadable body) mapped onto Beacon's codes. */
function toBeaconError(err: Error & { code?: string; statusCode?: number }): BeaconError {
  if (isBeaconError(err)) return err;
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new BeaconError('payload_too_large', `request body exceeds the limit: ${err.message}`);
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new BeaconError('unsupported_media_type', '415 unsupported media type, supported: [application/json, application/x-protobuf]');
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) return new BeaconError('bad_data', err.message);
  return new BeaconError('internal', err.message, { cause: err });
}
