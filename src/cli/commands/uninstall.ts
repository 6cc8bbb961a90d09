import { collectorConfig } from '../../config/config';
import { hooksLauncherPath } from '../../config/paths';
import { uninstallAgent } from '../../setup/agent-install';
import { AGENT_IDS, findAgent } from '../../setup/agents/registry';
import { resolveHarness, uninstallGoose } from '../../setup/install';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { CONFIG_OPTION, HOOKS_ONLY_OPTION, OTLP_ONLY_OPTION, SCOPE_OPTION, collectorPort, halvesOf, scopeOf } from '../setup-options';

export const spec = {
  name: 'beacon uninstall',
  summary: 'undo beacon install',
  usage: '<goose|claude-code|codex|gemini-cli|qwen-code|opencode|copilot-cli|pi> [--scope user|project] [--hooks-only|--otlp-only]',
  description: `Undoes beacon install. goose: removes the hooks file and the plugin directories that leaves empty,
the launcher (when no scope uses it any more), and the OTLP keys --configure-otlp set in config.yaml
while they still hold the values it wrote (a value you changed since is left, and named).
Other agents: puts each file back byte for byte while it is still what install wrote (from the
backup; a file install created is removed); otherwise takes out exactly Beacon's hook entries (and
the lists and objects it created for them, when left empty) and undoes its keys one by one where
they still hold what install set, keeping and naming everything you changed. opencode's plugin is
removed only while it is exactly what install wrote. The hook launcher goes with the last install
that uses it (goose's or an agent's). --hooks-only / --otlp-only undo one half. Environment lines are yours to remove: it names them.`,
  options: { scope: SCOPE_OPTION, 'hooks-only': HOOKS_ONLY_OPTION, 'otlp-only': OTLP_ONLY_OPTION, config: CONFIG_OPTION },
  examples: ['beacon uninstall goose', 'beacon uninstall codex', 'beacon uninstall gemini-cli --scope project'],
  positionals: ['goose', ...AGENT_IDS],
} as const satisfies CommandSpec;

export function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): number {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const agent = positionals[0] === undefined ? undefined : findAgent(positionals[0]);
  if (agent) {
    const { port } = collectorPort(undefined, collectorConfig(values.config, env), env);
    for (const line of uninstallAgent(agent, { scope: scopeOf(values.scope), env, cwd: process.cwd(), target: { protocol: 'http', base: `http://127.0.0.1:${port}`, port }, halves: halvesOf(values), launcher: hooksLauncherPath(env) })) out(line);
    return 0;
  }
  resolveHarness(positionals[0]);
  for (const line of uninstallGoose({ scope: scopeOf(values.scope), env, cwd: process.cwd(), launcher: hooksLauncherPath(env) })) out(line);
  return 0;
}
