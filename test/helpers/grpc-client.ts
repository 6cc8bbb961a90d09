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


export interface DeclaredMessage {
  stream: http2.ClientHttp2Stream;
  /** one more byte of the message, if the stream is still open */
  trickle(): void;
  /** what the server did with the stream: its gRPC status (trailers-only or trailers), RetryInfo's delay, the RST_STREAM code, when it closed */
  answer: Promise<{ grpcStatus?: number; grpcMessage?: string; retryDelaySeconds?: number; rstCode?: number; closedAfterMs: number }>;
}

/**
 * An Export call on a raw HTTP/2 session whose length prefix declares a `declared`-byte message,
 * of which only `sent` bytes follow (the stream is left open): what no gRPC library would send.
 * A stream the server has not closed after `giveUpMs` is closed by the client (closedAfterMs: Infinity).
 */
export function declareGrpcMessage(session: http2.ClientHttp2Session, declared: number, sent: number, giveUpMs = 10_000, signal: GrpcSignal = 'trace'): DeclaredMessage {
  const t0 = Date.now();
  const stream = session.request({ ':method': 'POST', ':path': `/opentelemetry.proto.collector.${signal}.v1.${SERVICE[signal]}/Export`, 'content-type': 'application/grpc', te: 'trailers' });
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(declared, 1);
  stream.write(Buffer.concat([prefix, Buffer.alloc(sent, 0x0a)]));
  stream.on('data', () => {});
  const answer = new Promise<Awaited<DeclaredMessage['answer']>>((resolve) => {
    let headers: http2.IncomingHttpHeaders = {};
    const status = (h: http2.IncomingHttpHeaders) => h['grpc-status'] !== undefined && (headers = h);
    stream.on('response', status);
    stream.on('trailers', status);
    stream.on('error', () => {}); // an RST_STREAM: its code is read at 'close'
    let gaveUp = false;
    const timer = setTimeout(() => {
      gaveUp = true;
      stream.close();
    }, giveUpMs);
    stream.once('close', () => {
      clearTimeout(timer);
      const details = headers['grpc-status-details-bin'];
      resolve({
        ...(headers['grpc-status'] !== undefined ? { grpcStatus: Number(headers['grpc-status']), grpcMessage: decodeURIComponent(String(headers['grpc-message'] ?? '')) } : {}),
        ...(details ? { retryDelaySeconds: retryDelay(Buffer.from(String(details), 'base64')) } : {}),
        ...(gaveUp ? {} : { rstCode: stream.rstCode }),
        closedAfterMs: gaveUp ? Infinity : Date.now() - t0,
      });
    });
  });
  return { stream, answer, trickle: () => !stream.closed && !stream.destroyed && stream.write(Buffer.from([0x0a])) };
}
