import pino from 'pino';
import { parseArgs } from 'node:util';
import { isLoopback, parseIntStrict, readConfigFile, readEnv, resolveCollectorConfig, type CollectorConfig } from '../config/config';
import { buildReceiver } from '../receiver/server';
import { EventLog } from '../store/event-log';
import { EventLogWriter } from '../store/event-log-writer';
import { JsonlExporter } from '../store/jsonl-export';
import { pruneInWorker } from '../store/retention-runner';

export const COLLECTOR_USAGE = `beacon collector [--host 127.0.0.1] [--port 4318] [--log PATH] [--config FILE]
                 [--max-body-bytes N] [--allow-remote]

Runs the OTLP/HTTP collector in the foreground (service managers run it so) and writes goose's
GenAI spans to the SQLite event log (default ~/.beacon/endpoint/events.db).`;

/** `beacon collector`: runs until SIGTERM/SIGINT, then finishes in-flight exports and closes the log. */
export async function runCollector(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      log: { type: 'string' },
      config: { type: 'string' },
      'max-body-bytes': { type: 'string' },
      'allow-remote': { type: 'boolean' },
    },
    strict: true,
  });
  const config = resolveCollectorConfig(
    {
      file: readConfigFile(values.config, env),
      env: readEnv(env),
      flags: {
        host: values.host,
        port: values.port === undefined ? undefined : parseIntStrict(values.port, '--port'),
        log: values.log,
        maxBodyBytes: values['max-body-bytes'] === undefined ? undefined : parseIntStrict(values['max-body-bytes'], '--max-body-bytes'),
        allowRemote: values['allow-remote'],
      },
    },
    env,
  );
  // Operational logs only: counts, sizes, durations, errors. Never span content.
  const logger = pino({ level: config.logLevel, base: { service: 'beacon-collector' } });
  if (!isLoopback(config.host)) logger.warn({ host: config.host }, 'listening on a non-loopback address: telemetry can reach this machine from the network');

  const writer = await EventLogWriter.start({ path: config.log, busyTimeoutMs: config.busyTimeoutMs });
  const receiver = buildReceiver({
    writer, logger, maxBodyBytes: config.maxBodyBytes, maxPendingExports: config.maxPendingExports,
    // A user who binds another address (--allow-remote) reaches us under it.
    allowedHosts: [...config.allowedHosts.split(','), ...(isLoopback(config.host) || ['0.0.0.0', '::'].includes(config.host) ? [] : [config.host])],
    dashboard: { logPath: config.log, token: config.dashboardToken, retention: { maxAgeDays: config.retentionMaxAgeDays, maxBytes: config.retentionMaxBytes }, env },
  });
  try {
    await receiver.app.listen({ host: config.host, port: config.port });
  } catch (e) {
    await writer.close();
    throw e;
  }
  const exporter = config.exportPath ? startExport(config.log, config.exportPath, config.exportRotateBytes, config.exportArchives, logger) : undefined;
  const retention = startRetention(config, logger);

  const addr = receiver.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  logger.info({ address: `http://${host}:${port}`, log: config.log }, 'collector ready');

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      const started = Date.now();
      receiver.beginShutdown();
      // Waits for in-flight exports, which wait for their commit. A client that keeps a socket open
      // anyway is cut off after a grace period so a service manager never has to kill us.
      const grace = setTimeout(() => receiver.app.server.closeAllConnections(), 10_000);
      await receiver.app.close();
      clearTimeout(grace);
      await writer.close();
      clearInterval(retention);
      exporter?.stop(); // after the last commit: the export ends with every acknowledged event
      logger.info({ signal, ms: Date.now() - started, ...receiver.stats }, 'collector stopped');
      resolve(0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}

/** The runtime.jsonl export: drains the log every 250 ms, in batches that yield to the event loop. */
function startExport(logPath: string, path: string, rotateBytes: number, archives: number, logger: pino.Logger): { stop(): void } {
  const log = EventLog.open(logPath, { readonly: true });
  const exporter = new JsonlExporter(log, { path, rotateBytes, archives });
  const from = exporter.open();
  logger.info({ path, from: from.toString() }, 'exporting JSONL');
  let busy = false;
  const drain = () => {
    if (busy) return;
    busy = true;
    try {
      const n = exporter.exportPending(2000);
      if (n === 2000) setImmediate(drain);
    } catch (e) {
      logger.error({ err: (e as Error).message }, 'JSONL export failed; retrying');
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(drain, 250);
  return {
    stop() {
      clearInterval(timer);
      while (exporter.exportPending(2000) > 0);
      exporter.close();
      log.close();
    },
  };
}

/** Retention in the background: a pass a minute after start, then every interval, each in a worker. */
function startRetention(config: Readonly<CollectorConfig>, logger: pino.Logger): NodeJS.Timeout {
  const policy = { maxAgeDays: config.retentionMaxAgeDays, maxBytes: config.retentionMaxBytes };
  let running = false;
  const pass = () => {
    if (running || (policy.maxAgeDays === 0 && policy.maxBytes === 0)) return;
    running = true;
    pruneInWorker(config.log, policy, config.busyTimeoutMs)
      .then((r) => {
        if (r.deletedByAge + r.deletedBySize > 0) logger.info({ ...r }, 'retention pruned events');
      })
      .catch((e) => logger.error({ err: (e as Error).message }, 'retention failed'))
      .finally(() => (running = false));
  };
  setTimeout(pass, Math.min(60_000, config.retentionIntervalMs)).unref();
  const timer = setInterval(pass, Math.max(1000, config.retentionIntervalMs));
  timer.unref();
  return timer;
}
