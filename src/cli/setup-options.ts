import { parseIntStrict, type CollectorConfig } from '../config/config';
import { CONFIG_KEYS, envName, shownDefault } from '../config/config-keys';
import { collectorAddressPath, isRunning, readCollectorAddress } from '../config/collector-address';
import { BeaconError } from '../model/errors';
import { defaultServiceKind, installedServiceSettings } from '../setup/service';
import type { Protocol, Target } from '../setup/agents/spec';

/** What install, uninstall, doctor and service share: their options and the collector they mean. */
export const HOOKS_LOG_OPTION = { type: 'string', arg: 'PATH', help: `the event log the hooks write (default ${shownDefault('log')}, or $${envName('log')})` } as const;
export const CONFIG_OPTION = { type: 'string', arg: 'FILE', help: 'the config file (default ~/.beacon/endpoint/config.json)' } as const;
export const SCOPE_OPTION = { type: 'string', arg: 'S', help: 'user (default: ~/.agents, every session) or project (./.agents, sessions started here)' } as const;


export const HOOKS_ONLY_OPTION = { type: 'boolean', help: "an agent's hooks alone (its hook entries, switches, plugin and the launcher), not its OTLP export" } as const;
export const OTLP_ONLY_OPTION = { type: 'boolean', help: "an agent's OTLP export keys alone, not its hooks" } as const;

/** Which halves of an agent's install a command means: both unless one flag names one. */
export function halvesOf(values: { 'hooks-only'?: boolean; 'otlp-only'?: boolean }): { otlp: boolean; hooks: boolean } {
  if (values['hooks-only'] && values['otlp-only']) throw new BeaconError('usage', '--hooks-only and --otlp-only exclude each other (neither: both halves)');
  return { otlp: values['hooks-only'] !== true, hooks: values['otlp-only'] !== true };
}

export const PROTOCOL_OPTION = { type: 'string', arg: 'P', help: 'http (default: OTLP/HTTP on the collector\'s port) or grpc (OTLP/gRPC on grpcPort, 4317), where the agent can use it' } as const;

export function protocolOf(v: string | undefined): Protocol {
  if (v === undefined || v === 'http' || v === 'grpc') return v ?? 'http';
  throw new BeaconError('usage', `--protocol must be http or grpc, got ${v}`);
}

/** Where an agent's export goes over a protocol: the collector's HTTP port, or its gRPC port (config `grpcPort`). */
export function agentTarget(protocol: Protocol, httpPort: number, cfg: Readonly<CollectorConfig>): Target {
  const port = protocol === 'grpc' ? cfg.grpcPort : httpPort;
  return { protocol, base: `http://127.0.0.1:${port}`, port, ...(cfg.otlpToken ? { token: cfg.otlpToken } : {}) };
}

export function scopeOf(v: string | undefined): 'user' | 'project' {
  if (v === undefined || v === 'user' || v === 'project') return v ?? 'user';
  throw new BeaconError('usage', `--scope must be user or project, got ${v}`);
}

/**
 * The one port every command means: --port, else the installed service's (it is what runs), else
 * the config's. doctor and install goose must agree with the collector goose will talk to.
 */
export function collectorPort(flag: string | undefined, cfg: Readonly<CollectorConfig>, env: NodeJS.ProcessEnv): { port: number; source: string } {
  if (flag !== undefined) return { port: parseIntStrict(flag, '--port'), source: '--port' };
  // A collector running on this log says where it listens (issue 24 item 4: one started with --port
  // was not found by `beacon dashboard`): the file is what the hook launcher trusts too.
  const running = runningCollector(cfg.log);
  if (running) return { port: running.port, source: `the running collector's ${collectorAddressPath(cfg.log)}` };
  const svc = installedServiceSettings(defaultServiceKind(), env);
  if (svc?.port !== undefined) return { port: svc.port, source: `the installed service, ${svc.file}` };
  return { port: cfg.port, source: cfg.port === CONFIG_KEYS.port.default ? 'the default' : 'the config' };
}

/**
 * The collector that writes `log`, from the address file it keeps beside it, when that process still
 * runs (the same process: its start time, as the hook launcher checks it); undefined when there is
 * none, or it was killed outright and left the file.
 */
export function runningCollector(log: string): { url: string; port: number; pid: number } | undefined {
  const a = readCollectorAddress(log);
  if (!a || !isRunning(a)) return undefined;
  const m = /^http:\/\/(?:127\.0\.0\.1|\[::1\]):(\d{1,5})$/.exec(a.url);
  return m ? { url: a.url, port: Number(m[1]), pid: a.pid } : undefined;
}
