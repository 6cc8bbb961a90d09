import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { OtlpTypes } from '../../src/receiver/proto-root';

export type GrpcSignal = 'trace' | 'logs' | 'metrics';
const SERVICE: Record<GrpcSignal, string> = { trace: 'TraceService', logs: 'LogsService', metrics: 'MetricsService' };

export interface GrpcAnswer {
  /** 0 for OK */
  code: number;
  details: string;
  /** the Export*ServiceResponse bytes, on OK */
  response?: Buffer;
  /** google.rpc.RetryInfo's delay from grpc-status-details-bin, when the status carries one */
  retryDelaySeconds?: number;
}

/**
 * One OTLP/gRPC Export call with raw bytes, as any gRPC client sends them (grpc-js, the client half
 * of what the collector serves): for the answers the OpenTelemetry exporter does not show (codes,
 * status details) and for bodies it would never send.
 */
export function grpcExport(address: string, signal: GrpcSignal, body: Buffer, options: { gzip?: boolean; authorization?: string } = {}): Promise<GrpcAnswer> {
  const channelOptions = options.gzip ? { 'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip } : {};
  const client = new grpc.Client(address, grpc.credentials.createInsecure(), channelOptions);
  const bytes = (b: Buffer) => b;
  const metadata = new grpc.Metadata();
  if (options.authorization) metadata.set('authorization', options.authorization);
  return new Promise<GrpcAnswer>((resolve) => {
    client.makeUnaryRequest(`/opentelemetry.proto.collector.${signal}.v1.${SERVICE[signal]}/Export`, bytes, bytes, body, metadata, (err, response) => {
      client.close();
      if (!err) return resolve({ code: 0, details: '', response: response! });
      const details = err.metadata?.get('grpc-status-details-bin')[0];
      resolve({ code: err.code, details: err.details, ...(details ? { retryDelaySeconds: retryDelay(details as Buffer) } : {}) });
    });
  });
}

function retryDelay(statusBytes: Buffer): number | undefined {
  const status = OtlpTypes.status.decode(statusBytes) as unknown as { details?: { typeUrl: string; value: Uint8Array }[] };
  const info = status.details?.find((d) => d.typeUrl === 'type.googleapis.com/google.rpc.RetryInfo');
  if (!info) return undefined;
  const decoded = OtlpTypes.retryInfo.decode(info.value) as unknown as { retryDelay?: { seconds?: number | { toNumber(): number } } };
  const s = decoded.retryDelay?.seconds ?? 0;
  return typeof s === 'number' ? s : s.toNumber();
}


/** What the server did with a raw stream: its gRPC status (trailers-only or trailers), RetryInfo's delay, the RST_STREAM code. */
export interface StreamAnswer {
  grpcStatus?: number;
  grpcMessage?: string;
  retryDelaySeconds?: number;
  rstCode?: number;
}

export interface DeclaredMessage {
  stream: http2.ClientHttp2Stream;
  /** one more byte of the message, if the stream is still open */
  trickle(): void;
  /** the answer, and when the stream closed; no rstCode when the client gave up */
  answer: Promise<StreamAnswer & { closedAfterMs: number }>;
}

/**
 * An Export call on a raw HTTP/2 session whose length prefix declares a `declared`-byte message,
 * of which only `sent` bytes follow (the stream is left open): what no gRPC library would send.
 * A stream the server has not closed after `giveUpMs` is closed by the client (closedAfterMs: Infinity).
 */
export function declareGrpcMessage(session: http2.ClientHttp2Session, declared: number, sent: number, giveUpMs = 10_000, signal: GrpcSignal = 'trace'): DeclaredMessage {
  const t0 = Date.now();
  const stream = exportStream(session, signal, {});
  stream.write(Buffer.concat([messagePrefix(false, declared), Buffer.alloc(sent, 0x0a)]));
  let gaveUp = false;
  const timer = setTimeout(() => {
    gaveUp = true;
    stream.close();
  }, giveUpMs);
  const answer = answerOf(stream).then(({ rstCode, ...rest }) => {
    clearTimeout(timer);
    return { ...rest, ...(gaveUp ? {} : { rstCode }), closedAfterMs: gaveUp ? Infinity : Date.now() - t0 };
  });
  return { stream, answer, trickle: () => !stream.closed && !stream.destroyed && stream.write(Buffer.from([0x0a])) };
}

export interface SentMessage {
  stream: http2.ClientHttp2Stream;
  answer: Promise<StreamAnswer>;
}

/**
 * One whole Export call on a raw HTTP/2 session: `message` behind its length prefix, with the
 * compressed flag and `grpc-encoding: gzip` when `gzip` — so a gzip bomb goes out as its few
 * compressed bytes, as no gRPC library would make one.
 */
export function sendGrpcMessage(session: http2.ClientHttp2Session, message: Buffer, options: { gzip?: boolean; signal?: GrpcSignal } = {}): SentMessage {
  const stream = exportStream(session, options.signal ?? 'trace', options.gzip ? { 'grpc-encoding': 'gzip' } : {});
  stream.end(Buffer.concat([messagePrefix(options.gzip ?? false, message.length), message]));
  return { stream, answer: answerOf(stream) };
}

function exportStream(session: http2.ClientHttp2Session, signal: GrpcSignal, headers: http2.OutgoingHttpHeaders): http2.ClientHttp2Stream {
  const stream = session.request({ ':method': 'POST', ':path': `/opentelemetry.proto.collector.${signal}.v1.${SERVICE[signal]}/Export`, 'content-type': 'application/grpc', te: 'trailers', ...headers });
  stream.on('data', () => {});
  stream.on('error', () => {}); // an RST_STREAM: its code is read at 'close'
  return stream;
}

/** The gRPC message prefix: the compressed flag, then the message's length. */
function messagePrefix(compressed: boolean, length: number): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt8(compressed ? 1 : 0, 0);
  prefix.writeUInt32BE(length, 1);
  return prefix;
}

function answerOf(stream: http2.ClientHttp2Stream): Promise<StreamAnswer> {
  return new Promise<StreamAnswer>((resolve) => {
    let headers: http2.IncomingHttpHeaders = {};
    const status = (h: http2.IncomingHttpHeaders) => h['grpc-status'] !== undefined && (headers = h);
    stream.on('response', status);
    stream.on('trailers', status);
    stream.once('close', () => {
      const details = headers['grpc-status-details-bin'];
      resolve({
        ...(headers['grpc-status'] !== undefined ? { grpcStatus: Number(headers['grpc-status']), grpcMessage: decodeURIComponent(String(headers['grpc-message'] ?? '')) } : {}),
        ...(details ? { retryDelaySeconds: retryDelay(Buffer.from(String(details), 'base64')) } : {}),
        rstCode: stream.rstCode,
      });
    });
  });
}
