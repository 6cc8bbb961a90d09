import { defaultConfigPath, hooksLauncherPath, installedEntryPoints } from '../../config/paths';
import { BeaconError } from '../../model/errors';
import { installGoose, resolveHarness } from '../../setup/install';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { CONFIG_OPTION, HOOKS_LOG_OPTION, SCOPE_OPTION, collectorConfig, collectorPort, scopeOf } from '../setup-options';

export const spec = {
  name: 'beacon install',
  summary: "set up goose's hooks plugin (and, asked, its OTLP export)",
  usage: 'goose [--scope user|project] [--configure-otlp] [--log PATH] [--config FILE]',
  description: `Installs goose's beacon-endpoint hooks plugin (hooks.json and a launcher pinning this Node.js),
so prompts and tool calls are recorded, and — with --configure-otlp — sets the OTLP export in goose's
config.yaml (after a timestamped backup). Without it config.yaml stays untouched and the two lines
to add are printed. The endpoint is the installed service's port, else the config's.`,
  options: { scope: SCOPE_OPTION, 'configure-otlp': { type: 'boolean', help: "set otel_exporter_otlp_endpoint/timeout in goose's config.yaml" }, log: HOOKS_LOG_OPTION, config: CONFIG_OPTION },
  examples: ['beacon install goose', 'beacon install goose --configure-otlp', 'beacon install goose --scope project'],
  positionals: ['goose'],
} as const satisfies CommandSpec;

export function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): number {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new BeaconError('usage', `${spec.name}: unexpected argument "${positionals[1]}"`);
  resolveHarness(positionals[0]);
  const scope = scopeOf(values.scope);
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
