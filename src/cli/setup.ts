import { parseArgs } from 'node:util';
import { parseIntStrict, readConfigFile, readEnv, resolveCollectorConfig, type CollectorConfig } from '../config/config';
import { defaultConfigPath, hooksLauncherPath, installedEntryPoints } from '../config/paths';
import { BeaconError } from '../model/errors';
import { runDoctor, type Check } from '../setup/doctor';
import { installGoose, resolveHarness, uninstallGoose } from '../setup/install';
import { defaultServiceKind, installService, serviceStatus, uninstallService, type ServiceKind } from '../setup/service';

export const SETUP_USAGE = `beacon install goose [--scope user|project] [--configure-otlp] [--log PATH] [--config FILE]
beacon uninstall goose [--scope user|project]
beacon doctor [--json] [--log PATH] [--config FILE]
beacon service install|uninstall|status [--kind systemd|launchd] [--log PATH] [--port N]`;

type Out = (s: string) => void;

function collectorConfig(config: string | undefined, env: NodeJS.ProcessEnv, flags: Partial<CollectorConfig> = {}): Readonly<CollectorConfig> {
  return resolveCollectorConfig({ file: readConfigFile(config, env), env: readEnv(env), flags }, env);
}

function scopeOf(v: string | undefined): 'user' | 'project' {
  if (v === undefined || v === 'user' || v === 'project') return v ?? 'user';
  throw new BeaconError('usage', `--scope must be user or project, got ${v}`);
}

export function runInstall(argv: string[], env: NodeJS.ProcessEnv, out: Out, uninstall = false): number {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { scope: { type: 'string' }, 'configure-otlp': { type: 'boolean' }, log: { type: 'string' }, config: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  resolveHarness(positionals[0]);
  const scope = scopeOf(values.scope);
  if (uninstall) {
    for (const line of uninstallGoose({ scope, env, cwd: process.cwd() })) out(line);
    return 0;
  }
  const cfg = collectorConfig(values.config, env, { log: values.log });
  const { hooksBundle } = installedEntryPoints();
  const lines = installGoose(
    {
      scope, env, cwd: process.cwd(),
      log: cfg.log,
      config: values.config ?? defaultConfigPath(env),
      launcher: hooksLauncherPath(env),
      node: process.execPath,
      hooksBundle,
      endpoint: `http://127.0.0.1:${cfg.port}`,
    },
    values['configure-otlp'] === true,
  );
  for (const line of lines) out(line);
  return 0;
}

export async function runDoctorCommand(argv: string[], env: NodeJS.ProcessEnv, out: Out): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { json: { type: 'boolean' }, log: { type: 'string' }, config: { type: 'string' } }, strict: true });
  const cfg = collectorConfig(values.config, env, { log: values.log });
  const checks = await runDoctor({ env, cwd: process.cwd(), host: cfg.host === '0.0.0.0' ? '127.0.0.1' : cfg.host, port: cfg.port, log: cfg.log });
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
  const { values, positionals } = parseArgs({
    args: argv,
    options: { kind: { type: 'string' }, log: { type: 'string' }, port: { type: 'string' }, config: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const kind = (values.kind ?? defaultServiceKind()) as ServiceKind;
  if (kind !== 'systemd' && kind !== 'launchd') throw new BeaconError('usage', `--kind must be systemd or launchd, got ${values.kind}`);
  const cfg = collectorConfig(values.config, env, { log: values.log, port: values.port === undefined ? undefined : parseIntStrict(values.port, '--port') });
  switch (positionals[0]) {
    case 'install':
      for (const l of installService({ kind, env, node: process.execPath, beacon: installedEntryPoints().beacon, log: cfg.log, port: cfg.port })) out(l);
      return 0;
    case 'uninstall':
      for (const l of uninstallService(kind, env)) out(l);
      return 0;
    case 'status': {
      const s = serviceStatus(kind, env);
      out(`${kind}: ${s.installed ? `installed at ${s.file}` : `not installed (${s.file} absent)`}; ${s.manager}`);
      return s.installed ? 0 : 1;
    }
    default:
      throw new BeaconError('usage', 'beacon service install|uninstall|status');
  }
}
