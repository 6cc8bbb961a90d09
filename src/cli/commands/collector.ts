import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import pino from 'pino';
import { LOG_POLICY } from '../../redact/log-policy';
import { collectorConfig, isLoopback } from '../../config/config';
import { CONFIG_KEYS } from '../../config/config-keys';
import { startCollectorService } from '../../collector/service';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configFlags, configOption } from '../config-flags';
import { explainListenError, portWarning } from '../listen-hints';
import { detach, stopBackground } from '../collector-background';
import { BeaconError } from '../../model/errors';

export const spec = {
  name: 'beacon collector',
  summary: 'run the OTLP collector (HTTP and gRPC) in the foreground (--detach: in the background)',
  usage: `[--host ${CONFIG_KEYS.host.default}] [--port ${CONFIG_KEYS.port.default}] [--grpc-port ${CONFIG_KEYS.grpcPort.default}] [--log PATH] [--config FILE] [--max-body-bytes N] [--allow-remote] [--json] [--detach | --stop]`,
  description: `Runs the OTLP collector in the foreground (service managers run it so): OTLP/HTTP on --port and
OTLP/gRPC on --grpc-port, both on --host, and writes the agents' records to the SQLite event log. Stops
cleanly on Ctrl-C / SIGTERM. Where there is no systemd user session or launchd for beacon service,
--detach runs it in the background (its output in <log>.collector.log) and --stop stops the one
that writes the log; nothing restarts it.`,
  options: {
    host: configOption('host'),
    port: configOption('port'),
    'grpc-port': configOption('grpcPort'),
    log: configOption('log'),
    config: { type: 'string', arg: 'FILE', help: 'the config file (default ~/.beacon/endpoint/config.json)' },
    'max-body-bytes': configOption('maxBodyBytes'),
    'allow-remote': configOption('allowRemote'),
    json: { type: 'boolean', help: 'the ready and stopped lines as JSON log records on a terminal too (they are on a pipe or file)' },
    detach: { type: 'boolean', help: 'run in the background once it listens (no systemd user session or launchd)' },
    stop: { type: 'boolean', help: 'stop the collector that writes the log (SIGTERM), and wait for it' },
  },
  examples: ['beacon collector', 'beacon collector --port 14318 --log /tmp/events.db', 'beacon collector --detach', 'beacon collector --stop'],
} as const satisfies CommandSpec;

/** `beacon collector`: runs until SIGTERM/SIGINT, then finishes in-flight exports and closes the log. */
export async function run(argv: string[], { env }: Pick<CommandIO, 'env'>): Promise<number> {
  const parsed = parseCommand(spec, argv, (s) => void process.stdout.write(`${s}\n`));
  if (!parsed) return 0;
  const { values } = parsed;
  const config = collectorConfig(values.config, env, configFlags(values));
  const say = (s: string) => void process.stdout.write(`${s}\n`);
  if (values.detach && values.stop) throw new BeaconError('usage', '--detach and --stop: one or the other');
  if (values.stop) return stopBackground(config.log, say);
  if (values.detach) return detach(argv, config.log, say);
  // Operational logs only: counts, sizes, durations, errors. Never span content.
  const logger = pino({ level: config.logLevel, base: { service: 'beacon-collector' }, ...LOG_POLICY });
  const portHint = portWarning(config.port);
  if (portHint) logger.warn({ port: config.port }, portHint);
  if (!isLoopback(config.host)) logger.warn({ host: config.host }, 'listening on a non-loopback address: telemetry can reach this machine from the network');

  // Signals are taken from before the start: a supervisor (or a test) may stop the collector the
  // moment it reads "collector ready", and a SIGTERM that finds no listener kills the process
  // mid-way (no "collector stopped", the address file left). One that arrives during the start
  // stops the collector as soon as it has started.
  // `on`, not `once`: Ctrl-C on `npm start` reaches the collector twice (the terminal's SIGINT to
  // the process group, then npm forwards its own), and a second signal with no listener would kill
  // the process mid-stop.
  let signalled: string | undefined;
  let onSignal = (signal: string) => void (signalled ??= signal);
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  let gaveUp: ((message: string) => void) | undefined;
  const before = filesOfLog(config.log);
  const service = await startCollectorService(config, logger, { onWriterGaveUp: (m) => gaveUp?.(m), env }).catch((e: unknown) => {
    // A start that failed (the port in use) leaves nothing behind: the log and its companions it
    // created are removed, so the next command does not find an empty log nobody writes.
    for (const f of filesOfLog(config.log)) if (!before.has(f)) rmSync(join(dirname(config.log), f), { force: true });
    throw explainListenError(e, config.host, config.port);
  });
  const grpc = service.grpc.health();
  // A person at a terminal reads one sentence; a pipe, a file or a supervisor reads the JSON record.
  const human = process.stdout.isTTY === true && values.json !== true;
  const grpcText = grpc.state === 'listening' ? grpc.address : grpc.state;
  if (human) say(`collector ready: OTLP/HTTP ${service.url}, OTLP/gRPC ${grpcText}, writing ${config.log} (Ctrl-C stops it; beacon doctor checks an agent's setup)`);
  else logger.info({ address: service.url, grpc: grpcText, log: config.log }, 'collector ready');

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string, code = 0) => {
      if (stopping) return;
      stopping = true;
      const started = Date.now();
      await service.stop();
      const stats = service.http.receiver.stats;
      if (human) say(`collector stopped (${signal}, ${Date.now() - started} ms)`);
      else logger.info({ signal, ms: Date.now() - started, ...stats }, 'collector stopped');
      resolve(code);
    };
    // A collector that cannot store exits non-zero, so systemd/launchd restart it.
    gaveUp = () => void stop('writer-failed', 1);
    onSignal = (signal) => void stop(signal);
    if (signalled) void stop(signalled);
  });
}

/** The log's file and the files beside it named after it (-wal, -shm, .hook-token, …). */
function filesOfLog(log: string): Set<string> {
  try {
    return new Set(readdirSync(dirname(log)).filter((f) => f === basename(log) || f.startsWith(`${basename(log)}.`) || f.startsWith(`${basename(log)}-`)));
  } catch {
    return new Set();
  }
}
