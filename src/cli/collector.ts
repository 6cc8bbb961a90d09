import pino from 'pino';
import { LOG_POLICY } from '../redact/log-policy';
import { isLoopback, parseIntStrict, readConfigFile, readEnv, resolveCollectorConfig } from '../config/config';
import { startCollectorService } from '../collector/service';
import { parseCommand, type CommandSpec } from './args';
import { explainListenError, portWarning } from './listen-hints';

export const COLLECTOR_COMMAND = {
  name: 'beacon collector',
  usage: '[--host 127.0.0.1] [--port 4318] [--log PATH] [--config FILE] [--max-body-bytes N] [--allow-remote]',
  description: `Runs the OTLP/HTTP collector in the foreground (service managers run it so) and writes goose's
GenAI spans to the SQLite event log. Stops cleanly on Ctrl-C / SIGTERM.`,
  options: {
    host: { type: 'string', arg: 'HOST', help: 'the address to listen on (default 127.0.0.1; loopback only unless --allow-remote)' },
    port: { type: 'string', arg: 'N', help: 'the port (default 4318, OTLP/HTTP; 0 picks a free one)' },
    log: { type: 'string', arg: 'PATH', help: 'the event log (default ~/.beacon/endpoint/events.db, or $BEACON_ENDPOINT_LOG)' },
    config: { type: 'string', arg: 'FILE', help: 'the config file (default ~/.beacon/endpoint/config.json)' },
    'max-body-bytes': { type: 'string', arg: 'N', help: 'the largest request body after decompression (default 64 MiB)' },
    'allow-remote': { type: 'boolean', help: 'allow a non-loopback --host (telemetry can then reach this machine from the network)' },
  },
  examples: ['beacon collector', 'beacon collector --port 14318 --log /tmp/events.db'],
} as const satisfies CommandSpec;

/** `beacon collector`: runs until SIGTERM/SIGINT, then finishes in-flight exports and closes the log. */
export async function runCollector(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = parseCommand(COLLECTOR_COMMAND, argv, (s) => void process.stdout.write(`${s}\n`));
  if (!parsed) return 0;
  const { values } = parsed;
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
  const logger = pino({ level: config.logLevel, base: { service: 'beacon-collector' }, ...LOG_POLICY });
  const portHint = portWarning(config.port);
  if (portHint) logger.warn({ port: config.port }, portHint);
  if (!isLoopback(config.host)) logger.warn({ host: config.host }, 'listening on a non-loopback address: telemetry can reach this machine from the network');

  let gaveUp: ((message: string) => void) | undefined;
  const service = await startCollectorService(config, logger, { onWriterGaveUp: (m) => gaveUp?.(m), env }).catch((e: unknown) => {
    throw explainListenError(e, config.host, config.port);
  });
  logger.info({ address: service.url, log: config.log }, 'collector ready');

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string, code = 0) => {
      if (stopping) return;
      stopping = true;
      const started = Date.now();
      await service.stop();
      logger.info({ signal, ms: Date.now() - started, ...service.http.receiver.stats }, 'collector stopped');
      resolve(code);
    };
    // A collector that cannot store exits non-zero, so systemd/launchd restart it.
    gaveUp = () => void stop('writer-failed', 1);
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}
