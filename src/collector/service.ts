import type { Logger } from 'pino';
import { isLoopback, type CollectorConfig } from '../config/config';
import type { EventSink, QueuedEventSink } from '../ingest/sink';
import { loopbackUrl, removeCollectorAddress, writeCollectorAddress } from '../config/collector-address';
import { ensureHookToken } from '../config/hook-token';
import { dashboardNotFound, dashboardPlugin, readOnlyLog } from '../dashboard/plugin';
import { buildReceiver, type Receiver } from '../receiver/server';
import { newHookRouteStats, registerHookRoute } from './hook-route';
import { EventLogWriter } from '../store/writer/event-log-writer';
import { startExportLoop, type ExportLoop } from './jsonl-export-loop';
import { startRetentionLoop, type RetentionLoop } from './retention-loop';
import { startForwarding, type Forwarding } from '../forward/supervisor';
import { startSpoolLoop, type SpoolLoop } from './spool-loop';

/** A client that keeps a socket open after the stop began is cut off after this long. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface CollectorService {
  /** where the receiver listens, e.g. `http://127.0.0.1:4318` */
  readonly url: string;
  readonly port: number;
  readonly receiver: Receiver;
  readonly writer: EventLogWriter;
  /**
   * Stops in dependency order: no new connections, no new exports (503 + Retry-After), in-flight ones answered after
   * their commit, spool ingestion finished, the writer closed, then the export drained to the last commit and retention
   * finished. Idempotent: a second call waits for the first.
   */
  stop(): Promise<void>;
}

/**
 * The collector as a service: starts and stops the receiver, the writer thread, spool ingestion,
 * the JSONL export and retention as one unit, so its lifecycle runs (and is tested) in-process. `beacon collector`
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
  const writer = await EventLogWriter.start({
    path: config.log,
    busyTimeoutMs: config.busyTimeoutMs,
    onWriterGaveUp: (e) => {
      logger.fatal({ err: e.message }, 'event log writer failed repeatedly: the collector cannot store');
      hooks.onWriterGaveUp?.(e.message);
    },
  });
  const sink: QueuedEventSink = writer; // the writer thread is the receiver's sink (checked here at compile time)
  const hookStats = newHookRouteStats();
  // Before listening: a forward destination whose ${env:NAME} header is unset fails the start.
  let forwarding: Forwarding | undefined;
  try {
    forwarding = startForwardingIfConfigured(config, hooks.env ?? process.env, logger);
  } catch (e) {
    await writer.close();
    throw e;
  }
  const receiver = buildReceiver({
    writer: sink,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    maxPendingExports: config.maxPendingExports,
    maxSpansPerExport: config.maxSpansPerExport,
    maxBytesInFlight: config.maxBytesInFlight,
    closeGraceMs: SHUTDOWN_GRACE_MS,
    healthExtras: () => ({ hooks: hookStats, ...(forwarding ? { forward: forwarding.status() } : {}) }),
    // The dashboard (issue 13) and the Host allowlist; an address bound with --allow-remote is reachable under its own name.
    allowedHosts: [...config.allowedHosts.split(','), ...(isLoopback(config.host) || ['0.0.0.0', '::'].includes(config.host) ? [] : [config.host])],
    pageNotFound: dashboardNotFound,
  });
  void receiver.app.register(dashboardPlugin, { openLog: readOnlyLog(config.log), health: () => receiver.health().body, token: config.dashboardToken, retention: { maxAgeDays: config.retentionMaxAgeDays, maxBytes: config.retentionMaxBytes }, env: process.env });
  // The hook fast path: goose's launcher posts hook events here (token beside the log, 0600).
  // Hook events commit at NORMAL, the durability the direct hook writer has always had: goose waits
  // on every hook, and an fsync per hook was most of the fast path's cost over a bare curl.
  const hookSink: EventSink = { append: (rows) => writer.append(rows, { synchronous: 'NORMAL' }) };
  registerHookRoute(receiver.app, { logPath: config.log, token: ensureHookToken(config.log), sink: hookSink, stats: hookStats });
  try {
    await receiver.app.listen({ host: config.host, port: config.port });
  } catch (e) {
    await forwarding?.stop();
    await writer.close();
    throw e;
  }
  let exporter: ExportLoop | undefined;
  let retention: RetentionLoop | undefined;
  let spool: SpoolLoop | undefined;
  try {
    spool = startSpoolLoop({ logPath: config.log, sink }, logger);
    exporter = config.exportPath
      ? startExportLoop({ logPath: config.log, path: config.exportPath, rotateBytes: config.exportRotateBytes, archives: config.exportArchives }, logger)
      : undefined;
    retention = startRetentionLoop(
      { logPath: config.log, policy: { maxAgeDays: config.retentionMaxAgeDays, maxBytes: config.retentionMaxBytes }, intervalMs: config.retentionIntervalMs, busyTimeoutMs: config.busyTimeoutMs, onResult: (r) => forwarding?.noteRetention(r) },
      logger,
    );
  } catch (e) {
    await spool?.stop();
    await receiver.app.close();
    await forwarding?.stop();
    await writer.close();
    throw e;
  }

  const addr = receiver.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  // Tells the hook launcher a collector writes this log, and where (src/config/collector-address.ts).
  const hookUrl = loopbackUrl(config.host, port);
  if (hookUrl) {
    try {
      writeCollectorAddress(config.log, hookUrl);
    } catch (e) {
      logger.warn({ err: (e as Error).message }, 'cannot write the collector address file: hooks take the direct writer');
    }
  }

  let stopped: Promise<void> | undefined;
  const stop = async () => {
    if (hookUrl) removeCollectorAddress(config.log, hookUrl); // hooks from now on write directly
    // New connections refused; every request already received answered (in-flight exports after
    // their commit, later ones 503 + Retry-After); a socket still open after the grace is cut.
    await receiver.close();
    await spool!.stop(); // a pass in progress commits what it read; the rest waits for the next start
    await writer.close();
    await retention!.stop();
    exporter?.stop(); // after the last commit: the export ends with every acknowledged event
    await forwarding?.stop(); // the batch in flight finishes and its acknowledgement is recorded
  };
  return {
    url: `http://${host}:${port}`,
    port,
    receiver,
    writer,
    stop: () => (stopped ??= stop()),
  };
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
