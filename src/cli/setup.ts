import { parseIntStrict, readConfigFile, readEnv, resolveCollectorConfig, type CollectorConfig } from '../config/config';
import { defaultConfigPath, hooksLauncherPath, installedEntryPoints } from '../config/paths';
import { BeaconError } from '../model/errors';
import { runDoctor, type Check } from '../setup/doctor';
import { installGoose, resolveHarness, uninstallGoose } from '../setup/install';
import {
  defaultServiceKind, describeServiceState, installService, installedServiceSettings, serviceState, uninstallService, type ServiceKind,
} from '../setup/service';
import { expectPositional, parseCommand, type CommandSpec } from './args';

const LOG_OPTION = { type: 'string', arg: 'PATH', help: 'the event log the hooks write (default ~/.beacon/endpoint/events.db, or $BEACON_ENDPOINT_LOG)' } as const;
const CONFIG_OPTION = { type: 'string', arg: 'FILE', help: 'the config file (default ~/.beacon/endpoint/config.json)' } as const;
const SCOPE_OPTION = { type: 'string', arg: 'S', help: 'user (default: ~/.agents, every session) or project (./.agents, sessions started here)' } as const;

export const INSTALL_COMMAND = {
  name: 'beacon install',
  usage: 'goose [--scope user|project] [--configure-otlp] [--log PATH] [--config FILE]',
  description: `Installs goose's beacon-endpoint hooks plugin (hooks.json and a launcher pinning this Node.js),
so prompts and tool calls are recorded, and — with --configure-otlp — sets the OTLP export in goose's
config.yaml (after a timestamped backup). Without it config.yaml stays untouched and the two lines
to add are printed. The endpoint is the installed service's port, else the config's.`,
  options: { scope: SCOPE_OPTION, 'configure-otlp': { type: 'boolean', help: "set otel_exporter_otlp_endpoint/timeout in goose's config.yaml" }, log: LOG_OPTION, config: CONFIG_OPTION },
  examples: ['beacon install goose', 'beacon install goose --configure-otlp', 'beacon install goose --scope project'],
  positionals: ['goose'],
} as const satisfies CommandSpec;

export const UNINSTALL_COMMAND = {
  name: 'beacon uninstall',
  usage: 'goose [--scope user|project]',
  description: `Undoes beacon install: removes the hooks file and the plugin directories that leaves empty, the
launcher (when no scope uses it any more), and the OTLP keys --configure-otlp set in config.yaml
while they still hold the values it wrote (a value you changed since is left, and named).`,
  options: { scope: SCOPE_OPTION },
  examples: ['beacon uninstall goose', 'beacon uninstall goose --scope project'],
  positionals: ['goose'],
} as const satisfies CommandSpec;

export const DOCTOR_COMMAND = {
  name: 'beacon doctor',
  usage: '[--json] [--send-test] [--log PATH] [--config FILE] [--port N]',
  description: `Checks, one by one, that goose telemetry will arrive: the collector (and that it writes the log you
read), the service, goose's config.yaml and environment, the hooks plugin (by running its launcher),
and the event log. Exit 0 when nothing failed, 1 otherwise. It writes nothing — unless --send-test:
then it posts a test span to the collector and runs the installed pre-tool hook with a test
payload, and finds both in the log (they stay there, under a beacon-doctor-test-… session).`,
  options: {
    json: { type: 'boolean', help: 'the checks as one JSON document' },
    'send-test': { type: 'boolean', help: 'send a test span and a test hook event, and confirm both landed in the log' },
    log: LOG_OPTION,
    config: CONFIG_OPTION,
    port: { type: 'string', arg: 'N', help: "the collector's port (default: the installed service's, else the config's)" },
  },
  examples: ['beacon doctor', 'beacon doctor --send-test', 'beacon doctor --json'],
} as const satisfies CommandSpec;

export const SERVICE_COMMAND = {
  name: 'beacon service',
  usage: 'install|uninstall|status [--kind systemd|launchd] [--port N] [--log PATH] [--config FILE]',
  description: `Runs the collector in the background: a systemd user unit (Linux) or a launchd agent (macOS),
rendered with this install's absolute paths, bound to loopback, restarted on failure, started at
every login. status reports installed, enabled and running.`,
  options: {
    kind: { type: 'string', arg: 'K', help: 'systemd (default on Linux) or launchd (default on macOS)' },
    port: { type: 'string', arg: 'N', help: 'the port the service listens on (default: the config\'s, 4318)' },
    log: { type: 'string', arg: 'PATH', help: 'the event log the service writes' },
    config: CONFIG_OPTION,
  },
  examples: ['beacon service install', 'beacon service install --port 14318', 'beacon service status', 'beacon service uninstall'],
  positionals: ['install', 'uninstall', 'status'],
} as const satisfies CommandSpec;

type Out = (s: string) => void;

function collectorConfig(config: string | undefined, env: NodeJS.ProcessEnv, flags: Partial<CollectorConfig> = {}): Readonly<CollectorConfig> {
  return resolveCollectorConfig({ file: readConfigFile(config, env), env: readEnv(env), flags }, env);
}

function scopeOf(v: string | undefined): 'user' | 'project' {
  if (v === undefined || v === 'user' || v === 'project') return v ?? 'user';
  throw new BeaconError('usage', `--scope must be user or project, got ${v}`);
}

/**
 * The one port every command means: --port, else the installed service's (it is what runs), else
 * the config's. doctor and install goose must agree with the collector goose will talk to.
 */
export function collectorPort(flag: string | undefined, cfg: Readonly<CollectorConfig>, env: NodeJS.ProcessEnv): { port: number; source: string } {
  if (flag !== undefined) return { port: parseIntStrict(flag, '--port'), source: '--port' };
  const svc = installedServiceSettings(defaultServiceKind(), env);
  if (svc?.port !== undefined) return { port: svc.port, source: `the installed service (${svc.file})` };
  return { port: cfg.port, source: cfg.port === 4318 ? 'the default' : 'the config' };
}

export function runInstall(argv: string[], env: NodeJS.ProcessEnv, out: Out, uninstall = false): number {
  const spec = uninstall ? UNINSTALL_COMMAND : INSTALL_COMMAND;
  const parsed = parseCommand(spec as CommandSpec<typeof INSTALL_COMMAND.options>, argv, out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new BeaconError('usage', `${spec.name}: unexpected argument "${positionals[1]}"`);
  resolveHarness(positionals[0]);
  const scope = scopeOf(values.scope);
  if (uninstall) {
    for (const line of uninstallGoose({ scope, env, cwd: process.cwd(), launcher: hooksLauncherPath(env) })) out(line);
    return 0;
  }
  const cfg = collectorConfig(values.config, env, { log: values.log });
  const { port } = collectorPort(undefined, cfg, env);
  const { hooksBundle } = installedEntryPoints();
  const lines = installGoose(
    {
      scope, env, cwd: process.cwd(),
      log: cfg.log,
      config: values.config ?? defaultConfigPath(env),
      launcher: hooksLauncherPath(env),
      node: process.execPath,
      hooksBundle,
      endpoint: `http://127.0.0.1:${port}`,
    },
    values['configure-otlp'] === true,
  );
  for (const line of lines) out(line);
  return 0;
}

export async function runDoctorCommand(argv: string[], env: NodeJS.ProcessEnv, out: Out): Promise<number> {
  const parsed = parseCommand(DOCTOR_COMMAND, argv, out);
  if (!parsed) return 0;
  const { values } = parsed;
  const cfg = collectorConfig(values.config, env, { log: values.log });
  const { port, source } = collectorPort(values.port, cfg, env);
  const checks = await runDoctor({
    env, cwd: process.cwd(),
    host: cfg.host === '0.0.0.0' ? '127.0.0.1' : cfg.host,
    port, portSource: source,
    log: cfg.log,
    service: serviceState(defaultServiceKind(), env),
    sendTest: values['send-test'] === true,
  });
  const ok = checks.every((c) => c.status !== 'fail');
  if (values.json) out(JSON.stringify({ ok, checks }));
  else for (const c of checks) out(formatCheck(c));
  return ok ? 0 : 1;
}

function formatCheck(c: Check): string {
  const tag = { ok: ' ok ', warn: 'warn', fail: 'FAIL' }[c.status];
  return `[${tag}] ${c.id.padEnd(16)} ${c.message}${c.fix && c.status !== 'ok' ? `\n       fix: ${c.fix}` : ''}`;
}

export function runServiceCommand(argv: string[], env: NodeJS.ProcessEnv, out: Out): number {
  const parsed = parseCommand(SERVICE_COMMAND, argv, out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const action = expectPositional(SERVICE_COMMAND, positionals[0], 'action');
  if (positionals.length > 1) throw new BeaconError('usage', `beacon service: unexpected argument "${positionals[1]}"`);
  const kind = (values.kind ?? defaultServiceKind()) as ServiceKind;
  if (kind !== 'systemd' && kind !== 'launchd') throw new BeaconError('usage', `--kind must be systemd or launchd, got ${values.kind}`);
  const cfg = collectorConfig(values.config, env, { log: values.log, port: values.port === undefined ? undefined : parseIntStrict(values.port, '--port') });
  switch (action) {
    case 'install':
      for (const l of installService({ kind, env, node: process.execPath, beacon: installedEntryPoints().beacon, log: cfg.log, port: cfg.port })) out(l);
      return 0;
    case 'uninstall':
      for (const l of uninstallService(kind, env)) out(l);
      return 0;
    default: {
      const s = serviceState(kind, env);
      const svc = installedServiceSettings(kind, env);
      out(`${describeServiceState(s)}${svc?.port !== undefined ? `; port ${svc.port}` : ''}${svc?.log ? `; log ${svc.log}` : ''}`);
      return s.installed ? 0 : 1;
    }
  }
}
