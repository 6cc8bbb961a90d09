import pino from 'pino';
import { parseArgs } from 'node:util';
import { isLoopback, parseIntStrict, readConfigFile, readEnv, resolveCollectorConfig } from '../config/config';
import { startCollectorService } from '../collector/service';

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

  const service = await startCollectorService(config, logger);
  logger.info({ address: service.url, log: config.log }, 'collector ready');

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      const started = Date.now();
      await service.stop();
      logger.info({ signal, ms: Date.now() - started, ...service.receiver.stats }, 'collector stopped');
      resolve(0);
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}
