import { collectorConfig } from '../../config/config';
import { CONFIG_KEYS } from '../../config/config-keys';
import { installedEntryPoints } from '../../config/paths';
import { BeaconError } from '../../model/errors';
import {
  defaultServiceKind, describeServiceState, installService, installedServiceSettings, serviceState, uninstallService, type ServiceKind,
} from '../../setup/service';
import { expectPositional, parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configFlags } from '../config-flags';
import { CONFIG_OPTION } from '../setup-options';

export const spec = {
  name: 'beacon service',
  summary: 'run the collector in the background (systemd user unit, launchd agent)',
  usage: 'install|uninstall|status [--kind systemd|launchd] [--port N] [--log PATH] [--config FILE]',
  description: `Runs the collector in the background: a systemd user unit (Linux) or a launchd agent (macOS),
rendered with this install's absolute paths, bound to loopback, restarted on failure, started at
every login. status reports installed, enabled and running.`,
  options: {
    kind: { type: 'string', arg: 'K', help: 'systemd (default on Linux) or launchd (default on macOS)' },
    port: { type: 'string', arg: 'N', help: `the port the service listens on (default: the config's, ${CONFIG_KEYS.port.default})` },
    log: { type: 'string', arg: 'PATH', help: 'the event log the service writes' },
    config: CONFIG_OPTION,
  },
  examples: ['beacon service install', 'beacon service install --port 14318', 'beacon service status', 'beacon service uninstall'],
  positionals: ['install', 'uninstall', 'status'],
} as const satisfies CommandSpec;

export async function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): Promise<number> {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const action = expectPositional(spec, positionals[0], 'action');
  const kind = (values.kind ?? defaultServiceKind()) as ServiceKind;
  if (kind !== 'systemd' && kind !== 'launchd') throw new BeaconError('usage', `--kind must be systemd or launchd, got ${values.kind}`);
  const cfg = collectorConfig(values.config, env, configFlags(values));
  switch (action) {
    case 'install':
      for (const l of installService({ kind, env, node: process.execPath, beacon: installedEntryPoints().beacon, log: cfg.log, port: cfg.port })) out(l);
      return 0;
    case 'uninstall':
      for (const l of uninstallService(kind, env)) out(l);
      return 0;
    default: {
      const s = await serviceState(kind, env);
      const svc = installedServiceSettings(kind, env);
      out(`${describeServiceState(s)}${svc?.port !== undefined ? `; port ${svc.port}` : ''}${svc?.log ? `; log ${svc.log}` : ''}`);
      return s.installed ? 0 : 1;
    }
  }
}
