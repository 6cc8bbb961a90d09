import type * as GrpcJs from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { checkOtlpToken } from '../config/otlp-token';
import type { QueuedEventSink } from '../ingest/sink';
import { BeaconError, isBeaconError } from '../model/errors';
import type { GrpcHealth, ReceiverCounters } from '../model/health';
import { STATUS_TABLE } from '../model/status-table';
import type { InFlightBytes } from './admission';
import { meterGrpcStreams } from './grpc-stream-meter';
import type { SenderCheck } from './sender-check';
import { countExport, newReceiverCounters } from './counters';
import { decodeExport, type DecodeLimits } from './decode';
import { NO_EXPORT } from './plugin';
import { OtlpTypes } from './proto-root';
import { encodeExportResponse } from './reply';
import { SIGNALS } from './signals/registry';
import type { OtlpSignal } from './signals/signal';
import { hostPort } from '../config/hosts';

export interface OtlpGrpcOptions extends DecodeLimits {
  host: string;
  /** 0: OTLP/gRPC is off */
  port: number;
  /** between attempts to listen after a failed one (default 5 s) */
  bindRetryMs?: number;
  /** the same sink as OTLP/HTTP: an export is answered after its commit */
  sink: QueuedEventSink;
  logger: Logger;
  maxPendingExports: number;
  /** the one in-flight budget OTLP/HTTP exports take from (admission by bytes across both transports) */
  budget: InFlightBytes;
  /** the collector's totals (/health's top-level counters), counted into beside gRPC's own */
  totals: ReceiverCounters;
  /** after stop(): how long calls in flight may take before they are cancelled */
  closeGraceMs?: number;
  /** config `otlpToken`: calls without `authorization: Bearer <it>` metadata get UNAUTHENTICATED */
  otlpToken?: string;
  /** a request message sending nothing this long, or not ended by the deadline, is cut (defaults: src/receiver/read-body.ts, as OTLP/HTTP's bodies) */
  bodyStallMs?: number;
  bodyDeadlineMs?: number;
  /** the OTLP/HTTP receiver's check of who sends (sender-check.ts): calls from another local user get PERMISSION_DENIED */
  senders?: SenderCheck;
}

export interface OtlpGrpcReceiver {
  health(): GrpcHealth;
  /** the port it listens on (0 when off or down) */
  readonly port: number;
  /** no new calls (they get UNAVAILABLE + RetryInfo); calls in flight are answered after their commit */
  stop(): Promise<void>;
}

const RETRY_INFO_TYPE = 'type.googleapis.com/google.rpc.RetryInfo';
/** The streams one client connection may have open at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS; RFC 9113 advises at least 100). */
const MAX_STREAMS_PER_CONNECTION = 100;

/**
 * OTLP/gRPC: the `Export` method of TraceService, LogsService and MetricsService, served by
 * @grpc/grpc-js (HTTP/2 framing, gzip, the message size limit after decompression). Messages stay
 * bytes (identity serializers): the request is the same `Export*ServiceRequest` an OTLP/HTTP
 * protobuf body is, so it takes the same path — admission, the wire count and item limit, the
 * signal's decoder, its consume into the sink, the reply after commit — and errors map through the
 * one status table. A port that cannot be bound leaves OTLP/HTTP running: the failure is logged
 * and /health says `down`.
 */
export async function startOtlpGrpc(options: OtlpGrpcOptions): Promise<OtlpGrpcReceiver> {
  const { logger } = options;
  const counters = newReceiverCounters();
  const address = hostPort(options.host, options.port);
  if (options.port === 0) return { port: 0, health: () => ({ ...counters, state: 'off', address: null }), stop: async () => {} };

  // Loaded here, not at the top: only the collector serves gRPC, and the other commands start faster without it.
  const grpc = (await import('@grpc/grpc-js')) as typeof GrpcJs;
  // grpc-js prints its own errors to stderr ("E No address added…"); ours say it better, in the collector's log
  grpc.setLogger({ error: (...a: unknown[]) => logger.debug({ grpc: a.map(String).join(' ') }, 'grpc-js'), info: () => {}, debug: () => {} } as unknown as Partial<Console>);
  let closing = false;
  /** Refusals that need no message: stopping, the writer's queue full. */
  const refusal = (): BeaconError | undefined => {
    if (closing) return new BeaconError('unavailable', 'the collector is shutting down', { retryAfterSeconds: 1 });
    if (options.sink.pending >= options.maxPendingExports) return new BeaconError('overloaded', `${options.sink.pending} exports are waiting for the event log`, { retryAfterSeconds: 1 });
    return undefined;
  };
  const budgetSpent = () => (options.budget.bytes >= options.budget.capacity ? new BeaconError('overloaded', `the in-flight limit is spent (maxBytesInFlight)`, { retryAfterSeconds: 1 }) : undefined);
  // Every call's message bytes are taken from the budget as they arrive; a stalled one is cut.
  const meter = meterGrpcStreams(grpc, options.budget, { stallMs: options.bodyStallMs, deadlineMs: options.bodyDeadlineMs }, (e) => grpcError(grpc, e, logger), logger);
  // A fresh server per attempt to listen: grpc-js keeps a failed bind's address (a second bindAsync on the same server fails again).
  const newServer = () => {
  const server = new grpc.Server({
    // grpc-js applies it to the message as it came (the meter has it hand compressed ones over compressed);
    // decodeExport applies it again after decompression (RESOURCE_EXHAUSTED, as grpc-go does in the Collector)
    'grpc.max_receive_message_length': options.maxBodyBytes,
    // Node's default is unlimited: each open stream costs a call and up to a flow-control window (64 KiB) before it is metered
    'grpc.max_concurrent_streams': MAX_STREAMS_PER_CONNECTION,
    interceptors: [...(options.senders ? [options.senders.interceptor(grpc, (e) => grpcError(grpc, e, logger))] : []), meter.interceptor, admitAtHeaders(grpc, (metadata) => tokenRefusal(options.otlpToken, metadata) ?? refusal() ?? budgetSpent(), logger)],
  });
  for (const signal of SIGNALS) {
    server.addService(serviceOf(signal), { Export: (call: GrpcJs.ServerUnaryCall<Buffer, Buffer>, callback: GrpcJs.sendUnaryData<Buffer>) => void exportCall(signal, call, callback) });
  }
  return server;
  };

  async function exportCall(signal: OtlpSignal, call: GrpcJs.ServerUnaryCall<Buffer, Buffer>, callback: GrpcJs.sendUnaryData<Buffer>): Promise<void> {
    const raw = call.request;
    const message = meter.messageOf(call.metadata);
    if (!message) return callback(grpcError(grpc, new BeaconError('internal', 'the call reached its handler without passing the stream meter'), logger, signal.name));
    // Its stream is gone (the client reset it): no one waits for the answer, and its budget is back.
    if (!message.claim()) return callback(grpcError(grpc, new BeaconError('bad_data', 'the client reset the stream before its export was read'), logger, signal.name));
    const { reservation } = message;
    try {
      const refused = refusal(); // again: the state may have changed while the message was read
      if (refused) throw refused;
      // Its bytes as they arrived are held already; a compressed one is inflated here, each chunk taken from the budget (body.ts), up to maxBodyBytes.
      const decoded = await decodeExport(signal, 'protobuf', raw, message.contentEncoding, options, reservation);
      const consumed = decoded.decoded === undefined ? NO_EXPORT : await signal.consume(decoded.decoded, options.sink, logger);
      countExport(counters, signal, decoded.items, consumed);
      countExport(options.totals, signal, decoded.items, consumed);
      callback(null, encodeExportResponse(signal, 'protobuf', consumed.rejected, consumed.message));
    } catch (e) {
      callback(grpcError(grpc, e, logger, signal.name));
    } finally {
      reservation.release();
    }
  }

  const listener = await listenRetrying(grpc, newServer, address, logger, options.bindRetryMs ?? BIND_RETRY_MS);

  let stopped: Promise<void> | undefined;
  const stop = () => {
    closing = true;
    return (stopped ??= new Promise<void>((resolve) => {
      const server = listener.stop();
      if (!server) return resolve();
      const force = setTimeout(() => server.forceShutdown(), options.closeGraceMs ?? 10_000);
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    }));
  };
  return {
    get port() {
      return listener.port;
    },
    health: () => {
      const { port, failure } = listener;
      const bound = failure ? address : `${address.slice(0, address.lastIndexOf(':'))}:${port}`;
      return { ...counters, state: failure ? 'down' : closing ? 'stopping' : 'listening', address: bound, ...(failure ? { error: failure, retrying: !closing } : {}) };
    },
    stop,
  };
}

/**
 * A call is refused at its headers, before its message is read, whenever it would be refused
 * after: its client need not send the message (the stream meter takes the bytes that do arrive).
 */
function admitAtHeaders(grpc: typeof GrpcJs, refusal: (metadata: GrpcJs.Metadata) => BeaconError | undefined, logger: Logger): GrpcJs.ServerInterceptor {
  return (_method, call) => {
    const intercepting: GrpcJs.ServerInterceptingCall = new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMetadata: (metadata, proceed) => {
            const refused = refusal(metadata);
            if (refused) intercepting.sendStatus(grpcError(grpc, refused, logger) as Parameters<GrpcJs.ServerInterceptingCall['sendStatus']>[0]);
            else proceed(metadata);
          },
        }),
    });
    return intercepting;
  };
}

/** The OTLP token check both transports share (src/config/otlp-token.ts), on the call's metadata. */
function tokenRefusal(expected: string | undefined, metadata: GrpcJs.Metadata): BeaconError | undefined {
  try {
    checkOtlpToken(expected, metadata.get('authorization').map(String));
    return undefined;
  } catch (e) {
    if (e instanceof BeaconError) return e;
    throw e;
  }
}

/** How often a collector that could not listen on its gRPC port tries again (the port's holder may be gone: another collector stopping, a restart's overlap). */
const BIND_RETRY_MS = 5_000;

interface Listener {
  port: number;
  failure?: string;
  /** no more attempts; the server listening, if any */
  stop(): GrpcJs.Server | undefined;
}

/**
 * Listens; a failure (a port in use…) is logged once and returned, never thrown — OTLP/HTTP runs
 * without gRPC — and the bind is tried again in the background until it succeeds or the collector
 * stops, so an agent exporting over gRPC is served once the port is free, without a restart.
 */
async function listenRetrying(grpc: typeof GrpcJs, newServer: () => GrpcJs.Server, address: string, logger: Logger, retryMs: number): Promise<Listener> {
  let server: GrpcJs.Server | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const state: Listener = { port: 0, stop: () => { stopped = true; clearTimeout(timer); return server; } };
  const attempt = async (first: boolean): Promise<void> => {
    const candidate = newServer();
    try {
      state.port = await new Promise<number>((resolve, reject) => candidate.bindAsync(address, grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
      if (stopped) return candidate.forceShutdown();
      server = candidate;
      if (!first) logger.info({ address, port: state.port }, 'OTLP/gRPC listening after retrying');
      state.failure = undefined;
    } catch (e) {
      candidate.forceShutdown();
      const failure = listenFailure(address, (e as Error).message, retryMs);
      if (first) logger.error({ address, retryMs }, failure);
      state.failure = failure;
      if (!stopped) timer = setTimeout(() => void attempt(false), retryMs).unref();
    }
  };
  await attempt(true);
  return state;
}

/** One signal's service with raw-bytes (de)serializers: the receiver's own wire walk and decoder read the request. */
function serviceOf(signal: OtlpSignal): GrpcJs.ServiceDefinition {
  const bytes = (b: Buffer) => b;
  return {
    Export: {
      path: `/${signal.grpcService}/Export`,
      requestStream: false,
      responseStream: false,
      requestSerialize: bytes,
      requestDeserialize: bytes,
      responseSerialize: bytes,
      responseDeserialize: bytes,
      originalName: 'export',
    },
  };
}

/** A failure as a gRPC status: the one table's code, and a google.rpc.RetryInfo in the status details when the client should come back. */
function grpcError(grpc: typeof GrpcJs, e: unknown, logger: Logger, signal?: string): Partial<GrpcJs.StatusObject> {
  const err = isBeaconError(e) ? e : new BeaconError('internal', (e as Error).message, { cause: e });
  const { http, grpc: code } = STATUS_TABLE[err.code];
  if (http >= 500 && err.code !== 'unavailable') logger.error({ code: err.code, err: err.message, signal, transport: 'grpc' }, 'export failed');
  const metadata = new grpc.Metadata();
  if (err.retryAfterSeconds !== undefined) {
    const retry = OtlpTypes.retryInfo.encode(OtlpTypes.retryInfo.create({ retryDelay: { seconds: err.retryAfterSeconds } })).finish();
    const status = OtlpTypes.status.create({ code, message: err.message, details: [{ typeUrl: RETRY_INFO_TYPE, value: retry }] });
    metadata.set('grpc-status-details-bin', Buffer.from(OtlpTypes.status.encode(status).finish()));
  }
  return { code, details: err.message, metadata };
}

/** What a failed bind means to a person: the address, and for a port in use, what to do. */
function listenFailure(address: string, message: string, retryMs: number): string {
  const port = address.slice(address.lastIndexOf(':') + 1);
  const why = /EADDRINUSE|address already in use/i.test(message)
    ? `port ${port} is in use (another collector, or an OpenTelemetry Collector, may be listening there); stop it, or set another port with --grpc-port N (0 turns OTLP/gRPC off)`
    : message;
  return `OTLP/gRPC is not listening on ${address}: ${why}. OTLP/HTTP still runs; gRPC is tried again every ${retryMs / 1000} s.`;
}
