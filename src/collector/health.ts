import { statSync } from 'node:fs';
import { BEACON_VERSION } from '../model/endpoint';
import type { ExportHealth, ForwardHealth, GrpcHealth, HealthAnswer, HealthReport, HealthStatus, HookFailureHealth, HookRouteHealth, ImportFollowHealth, ReceiverCounters, SenderCheckHealth, SpoolHealth } from '../model/health';
import type { WriterHealth } from '../store/writer/event-log-writer';
import { retentionSupervisor } from '../store/maintenance/retention-runner';
import type { ThreadError } from '../store/writer/thread-supervisor';

/** What the report reads from the collector's writer (`EventLogWriter`). */
export interface HealthSource {
  readonly path: string;
  readonly pending: number;
  health(): WriterHealth;
}

export interface HealthInput {
  /** the writer thread (or the receiver's sink that reads through to it) */
  writer: HealthSource;
  /** the receiver is stopping: new exports get 503 */
  closing: boolean;
  /** the receiver's counters (exports, spans, inserted…); none given (no receiver), zeros */
  counters?: ReceiverCounters;
  /** bytes in flight as admission counts them (bodies being read and decoded included); none given, 0 */
  queueBytes?: number;
  /** requests the Host guard refused */
  hostRefused?: number;
  /** exports refused for coming from another local user */
  senders?: SenderCheckHealth;
  hooks?: HookRouteHealth;
  hookFailures?: HookFailureHealth;
  /** OTLP/gRPC, when the collector runs it */
  grpc?: GrpcHealth;
  forward?: ForwardHealth[];
  /** the JSONL export, when configured: one refused or failing makes the collector degraded */
  export?: ExportHealth;
  spool?: SpoolHealth;
  importFollow?: ImportFollowHealth;
}

const NO_COUNTERS: ReceiverCounters = { exports: 0, inserted: 0, duplicates: 0, rejected: 0, spans: 0, logRecords: 0, metricPoints: 0, rejectedSpans: 0, rejectedLogRecords: 0, rejectedDataPoints: 0 };

/**
 * The collector's health: HTTP 200 while it can store ('ok', or 'degraded' when a maintenance
 * thread is down or the writer is recovering), 503 when it cannot ('unavailable': the writer is
 * backing off after a failure or has given up; 'stopping').
 */
export function healthReport(input: HealthInput): HealthAnswer {
  const w = input.writer.health();
  const retention = retentionSupervisor.snapshot;
  const threads = { ...w.threads, retention };
  const troubled = Object.values(threads).some((t) => t.state === 'restarting' || t.state === 'failed');
  const exportTroubled = input.export !== undefined && input.export.state !== 'exporting';
  const status: HealthStatus = input.closing ? 'stopping' : !w.canStore ? 'unavailable' : troubled || exportTroubled ? 'degraded' : 'ok';
  const lastError = [w.lastError, retention.lastError && { message: `retention: ${retention.lastError.message}`, at: retention.lastError.at }]
    .filter((e): e is ThreadError => e !== undefined)
    .sort((a, b) => b.at.localeCompare(a.at))[0];
  const body: HealthReport = {
    ...(input.counters ?? NO_COUNTERS),
    bytes_in_flight: input.queueBytes ?? 0,
    host_refused: input.hostRefused ?? 0,
    ...(input.senders ? { senders: input.senders } : {}),
    ...(input.hooks ? { hooks: input.hooks } : {}),
    ...(input.hookFailures ? { hookFailures: input.hookFailures } : {}),
    ...(input.grpc ? { grpc: input.grpc } : {}),
    ...(input.forward ? { forward: input.forward } : {}),
    ...(input.export ? { export: input.export } : {}),
    ...(input.spool ? { spool: input.spool } : {}),
    ...(input.importFollow ? { importFollow: input.importFollow } : {}),
    status,
    version: BEACON_VERSION,
    pid: process.pid,
    log: { path: input.writer.path, bytes: fileBytes(input.writer.path) + fileBytes(`${input.writer.path}-wal`) },
    threads,
    queue: { exports: w.queue.exports, bytes: input.queueBytes ?? 0 },
    checkpoints: w.checkpoints,
    acknowledged: w.acknowledged,
    ...(lastError ? { lastError } : {}),
    pending_exports: w.queue.exports,
  };
  return { httpStatus: status === 'ok' || status === 'degraded' ? 200 : 503, body };
}

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
