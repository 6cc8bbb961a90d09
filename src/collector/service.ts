import type { Logger } from 'pino';
import type { CollectorConfig } from '../config/config';
import { removeDashboardToken, writeDashboardToken } from '../config/dashboard-token-file';
import { loopbackUrl, refuseSecondCollector, removeCollectorAddress, writeCollectorAddress } from '../config/collector-address';
import { isBeaconError } from '../model/errors';
import { ensureHookToken } from '../config/hook-token';
import { EventLogWriter } from '../store/writer/event-log-writer';
import { allowedHostNames, hostPort } from '../config/hosts';
import { startForwarding, type Forwarding } from '../forward/supervisor';
import type { ExportHealth, GrpcHealth, ImportFollowHealth, SpoolHealth } from '../model/health';
import { newHookRouteStats } from '../hooks/route';
import type { QueuedEventSink } from '../ingest/sink';
import { startOtlpGrpc, type OtlpGrpcReceiver } from '../receiver/grpc';
import { buildCollectorHttp, type CollectorHttp } from './http';
import { HookFailureWatch } from './hook-failures';
import type { HealthSource } from './health';
import { startExportLoop } from './jsonl-export-loop';
import { Lifecycle } from './lifecycle';
import { startRetentionLoop } from './retention-loop';
import { startSpoolLoop } from './spool-loop';
import { startImportFollow } from './import-follow-loop';
import { storeOnlyAgentsInstalled } from '../setup/store-only-agents';

/** A client that keeps a socket open after the stop began is cut off after this long. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface CollectorService {
  /** where the receiver listens, e.g. `http://127.0.0.1:4318` */
  readonly url: string;
  readonly port: number;
  /** the HTTP app: OTLP receiver, hook route, dashboard, /health */
  readonly http: CollectorHttp;
  /** OTLP/gRPC beside it (off, or down when its port could not be bound: see its health) */
  readonly grpc: OtlpGrpcReceiver;
  readonly writer: EventLogWriter;
  /**
   * Stops in dependency order: no new connections, no new exports (503 + Retry-After), in-flight ones answered after
   * their commit, spool ingestion finished, the writer closed, then the export drained to the last commit and retention
   * finished. Idempotent: a second call waits for the first.
   */
  stop(): Promise<void>;
}

/**
 * The collector as a service, the composition root: starts and stops the writer thread,
 * forwarding, the JSONL export, retention, spool ingestion and the HTTP app as one unit, so its lifecycle runs (and is tested) in-process. `beacon collector`
 * only parses arguments, calls this and waits for a signal.
 */
export interface CollectorServiceHooks {
  /**
   * The writer thread failed to start again and again (see the store's supervisor): the collector
   * can no longer store, and only a restart by the service manager can help. `beacon collector`
   * stops and exits non-zero here; /health already answers 503.
   */
  onWriterGaveUp?: (message: string) => void;
  /** the collector's environment: forward headers written `${env:NAME}` come from it (default process.env) */
  env?: NodeJS.ProcessEnv;
}

export async function startCollectorService(config: Readonly<CollectorConfig>, logger: Logger, hooks: CollectorServiceHooks = {}): Promise<CollectorService> {
  // Started in this order, stopped in reverse (lifecycle.ts), which is the order a stop needs: the
  // address file first (hooks from now on write directly); no new connections, every request
  // already received answered (in-flight exports after their commit, later ones 503 + Retry-After);
  // spool ingestion finished; then nothing appends any more, so retention finishes, the export
  // drains to the last commit (it ends with every acknowledged event) and forwarding records the
  // acknowledgement of its batch in flight; the writer closes last.
  refuseSecondCollector(config.log); // before anything starts: one collector per log (issue 22 item 5)
  const parts = new Lifecycle();
  const writer = await parts.start(
    'writer',
    () =>
      EventLogWriter.start({
        path: config.log,
        busyTimeoutMs: config.busyTimeoutMs,
        onWriterGaveUp: (e) => {
          logger.fatal({ err: e.message }, 'event log writer failed repeatedly: the collector cannot store');
          hooks.onWriterGaveUp?.(e.message);
        },
      }),
    (w) => w.close(),
  );
  const sink: QueuedEventSink = writer; // the writer thread is the receiver's sink (checked here at compile time)
  // Before listening: a forward destination whose ${env:NAME} header is unset fails the start.
  const forwarding = await parts.start('forwarding', () => startForwardingIfConfigured(config, hooks.env ?? process.env, logger), (f) => f?.stop());
  const exportLoop = await parts.start(
    'export',
    () => (config.exportPath ? startExportLoop({ logPath: config.log, path: config.exportPath, rotateBytes: config.exportRotateBytes, archives: config.exportArchives }, logger) : undefined),
    (e) => e?.stop(),
  );
  await parts.start(
    'retention',
    () =>
      startRetentionLoop(
        { logPath: config.log, policy: { maxAgeDays: config.retentionMaxAgeDays, maxBytes: config.retentionMaxBytes }, intervalMs: config.retentionIntervalMs, busyTimeoutMs: config.busyTimeoutMs, onResult: (r) => forwarding?.noteRetention(r) },
        logger,
      ),
    (r) => r.stop(),
  );
  const spool = await parts.start('spool', () => startSpoolLoop({ logPath: config.log, sink }, logger), (s) => s.stop());
  // The agents' own session stores, read as they are written (stopped before the writer it commits through):
  // those `importFollow` names; unset, those of installed agents whose only record of model calls is their store.
  const followed = config.importFollow ?? storeOnlyAgentsInstalled(hooks.env ?? process.env);
  const importFollow = await parts.start(
    'import follow',
    () => (followed ? startImportFollow({ logPath: config.log, agents: followed, sink, busyTimeoutMs: config.busyTimeoutMs, env: hooks.env ?? process.env }, logger) : undefined),
    (f) => f?.stop(),
  );
  let grpcPart: OtlpGrpcReceiver | undefined;
  // Beacon's own hook failures reach the log over OTLP (either transport) and the hook route: counted for /health.
  const hookFailures = new HookFailureWatch();
  const otlpSink = hookFailures.watchQueued(writer); // one sink for both OTLP transports
  const status: StatusSources = { grpc: () => grpcPart?.health(), export: () => exportLoop?.health(), spool: () => spool.health(), importFollow: () => importFollow?.health() };
  const http = await parts.start('http', () => listen(config, logger, writer, otlpSink, forwarding, status, hookFailures), (h) => h.close());
  // After HTTP, so it is stopped first: no new gRPC calls, those in flight answered after their commit.
  // A port it cannot bind does not fail the start: OTLP/HTTP serves, /health says grpc is down.
  const grpc = (grpcPart = await parts.start('grpc', () => startGrpc(config, logger, otlpSink, http), (g) => g.stop()));

  const addr = http.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  // Tells the hook launcher a collector writes this log, and where (src/config/collector-address.ts).
  await parts.start('address file', () => publishAddress(config, port, logger), (url) => url && removeCollectorAddress(config.log, url));
  await parts.start('dashboard token file', () => publishDashboardToken(config, logger), (written) => written && removeDashboardToken(config.log));
  return {
    url: `http://${hostPort(config.host, port)}`,
    port,
    http,
    grpc,
    writer,
    stop: () => parts.stop(),
  };
}

/** The parts started beside the HTTP app whose state /health reports. */
interface StatusSources {
  grpc: () => GrpcHealth | undefined;
  export: () => ExportHealth | undefined;
  spool: () => SpoolHealth;
  importFollow: () => ImportFollowHealth | undefined;
}

/** The one HTTP app (http.ts) with its plugins, listening. */
async function listen(config: Readonly<CollectorConfig>, logger: Logger, writer: EventLogWriter, otlpSink: QueuedEventSink & HealthSource, forwarding: Forwarding | undefined, status: StatusSources, hookFailures: HookFailureWatch): Promise<CollectorHttp> {
  const http = buildCollectorHttp({
    grpcHealth: status.grpc,
    exportStatus: status.export,
    spoolStatus: status.spool,
    importFollowStatus: status.importFollow,
    sink: otlpSink,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    maxPendingExports: config.maxPendingExports,
    maxItemsPerExport: config.maxItemsPerExport,
    maxBytesInFlight: config.maxBytesInFlight,
    otlpToken: config.otlpToken,
    otlpAllowOtherUsers: config.otlpAllowOtherUsers,
    closeGraceMs: SHUTDOWN_GRACE_MS,
    allowedHosts: allowedHostNames(config.allowedHosts, config.host),
    // The hook fast path: goose's launcher posts hook events here (token beside the log, 0600).
    // Hook events commit at NORMAL, the durability the direct hook writer has always had: goose waits
    // on every hook, and an fsync per hook was most of the fast path's cost over a bare curl.
    hooks: { logPath: config.log, token: ensureHookToken(config.log), sink: hookFailures.watch({ append: (rows) => writer.append(rows, { synchronous: 'NORMAL' }) }), stats: newHookRouteStats() },
    hookFailures: () => hookFailures.health(),
    dashboard: { logPath: config.log, token: config.dashboardToken, retention: { maxAgeDays: config.retentionMaxAgeDays, maxBytes: config.retentionMaxBytes }, env: process.env },
    ...(forwarding ? { forwardStatus: () => forwarding.status() } : {}),
  });
  try {
    await http.app.listen({ host: config.host, port: config.port });
  } catch (e) {
    await http.close();
    throw e;
  }
  return http;
}

/** OTLP/gRPC on the HTTP app's host, with its sink, limits, in-flight budget and counters. */
function startGrpc(config: Readonly<CollectorConfig>, logger: Logger, writer: QueuedEventSink, http: CollectorHttp): Promise<OtlpGrpcReceiver> {
  return startOtlpGrpc({
    host: config.host,
    port: config.grpcPort,
    sink: writer,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    maxItemsPerExport: config.maxItemsPerExport,
    maxPendingExports: config.maxPendingExports,
    budget: http.receiver.budget,
    totals: http.receiver.stats,
    closeGraceMs: SHUTDOWN_GRACE_MS,
    otlpToken: config.otlpToken,
    senders: http.receiver.senders,
  });
}

/** The token `beacon dashboard` puts in the URL, as this collector has it (config/dashboard-token-file.ts); whether a file was written. */
function publishDashboardToken(config: Readonly<CollectorConfig>, logger: Logger): boolean {
  try {
    writeDashboardToken(config.log, config.dashboardToken);
    return config.dashboardToken !== undefined;
  } catch (e) {
    logger.warn({ err: (e as Error).message }, 'cannot write the dashboard token file: beacon dashboard prints the URL of its own config');
    return false;
  }
}

/** The collector address file for hooks, when the collector is reachable on loopback; its URL, to remove it at the stop. */
function publishAddress(config: Readonly<CollectorConfig>, port: number, logger: Logger): string | undefined {
  const url = loopbackUrl(config.host, port);
  if (!url) return undefined;
  try {
    writeCollectorAddress(config.log, url);
  } catch (e) {
    if (isBeaconError(e) && e.code === 'conflict') throw e; // another collector started meanwhile: this one stops
    logger.warn({ err: (e as Error).message }, 'cannot write the collector address file: hooks take the direct writer');
  }
  return url;
}

/** Forwarding to the configured destinations (src/forward), in its supervised worker; none configured, nothing runs. */
function startForwardingIfConfigured(config: Readonly<CollectorConfig>, env: NodeJS.ProcessEnv, logger: Logger): Forwarding | undefined {
  if (config.forward.length === 0) return undefined;
  return startForwarding({
    logPath: config.log,
    busyTimeoutMs: config.busyTimeoutMs,
    destinations: config.forward,
    env,
    retention: { maxAgeDays: config.retentionMaxAgeDays, maxBytes: config.retentionMaxBytes },
    logger,
  });
}
