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

