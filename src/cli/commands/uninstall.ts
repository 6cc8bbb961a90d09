import { hooksLauncherPath } from '../../config/paths';
import { BeaconError } from '../../model/errors';
import { resolveHarness, uninstallGoose } from '../../setup/install';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { SCOPE_OPTION, scopeOf } from '../setup-options';

export const spec = {
  name: 'beacon uninstall',
  summary: 'undo beacon install',
  usage: 'goose [--scope user|project]',
  description: `Undoes beacon install: removes the hooks file and the plugin directories that leaves empty, the
launcher (when no scope uses it any more), and the OTLP keys --configure-otlp set in config.yaml
while they still hold the values it wrote (a value you changed since is left, and named).`,
  options: { scope: SCOPE_OPTION },
  examples: ['beacon uninstall goose', 'beacon uninstall goose --scope project'],
  positionals: ['goose'],
} as const satisfies CommandSpec;

export function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): number {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new BeaconError('usage', `${spec.name}: unexpected argument "${positionals[1]}"`);
  resolveHarness(positionals[0]);
  for (const line of uninstallGoose({ scope: scopeOf(values.scope), env, cwd: process.cwd(), launcher: hooksLauncherPath(env) })) out(line);
  return 0;
}
