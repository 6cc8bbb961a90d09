import { collectorConfig } from '../../config/config';
import { defaultConfigPath, hooksLauncherPath, installedEntryPoints } from '../../config/paths';
import { BeaconError } from '../../model/errors';
import { didYouMean } from '../../model/suggest';
import { detectAgent } from '../../setup/agent-detect';
import { installAgent } from '../../setup/agent-install';
import { AGENT_IDS, AGENT_SPECS, findAgent } from '../../setup/agents/registry';
import type { Target } from '../../setup/agents/spec';
import { installGoose, resolveHarness } from '../../setup/install';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { CONFIG_OPTION, HOOKS_LOG_OPTION, HOOKS_ONLY_OPTION, OTLP_ONLY_OPTION, PROTOCOL_OPTION, SCOPE_OPTION, agentTarget, collectorPort, halvesOf, protocolOf, scopeOf } from '../setup-options';

export const spec = {
  name: 'beacon install',
  summary: "set up an agent's hooks and its OTLP export to Beacon; no agent: what each found would change",
  usage: '[goose|claude-code|codex|gemini-cli|qwen-code|opencode|copilot-cli|pi] [--scope user|project] [--hooks-only|--otlp-only] [--protocol http|grpc] [--capture-content] [--force] [--dry-run] [--configure-otlp] [--log PATH] [--config FILE]',
  description: `goose: installs its beacon-endpoint hooks plugin (hooks.json and a launcher pinning this Node.js),
so prompts and tool calls are recorded, and — with --configure-otlp — sets the OTLP export in goose's
config.yaml (after a timestamped backup). Without it config.yaml stays untouched and the two lines
to add are printed.
claude-code, codex, gemini-cli, qwen-code, opencode, copilot-cli: both halves by default.
Hooks: Beacon's one entry per event, appended beside your own hooks in the agent's hook file
(~/.claude/settings.json, ~/.codex/hooks.json with [features] hooks = true in config.toml,
~/.gemini/settings.json, ~/.qwen/settings.json, ~/.copilot/settings.json; opencode: a plugin
file of Beacon's, ~/.config/opencode/plugins/beacon.js), each running Beacon's launcher, which
exits 0 whatever happens: every prompt and tool call is recorded whatever the telemetry switches
say. OTLP: only Beacon's keys in the agent's settings file. Both edited in place (comments, key
order, indentation, a BOM and CRLF kept), after a timestamped backup; a value or a Beacon entry you
changed is refused unless --force (which replaces only Beacon's). --hooks-only / --otlp-only install
one half. Variables the agent reads from its environment only (opencode's endpoint, Copilot CLI's
export) are printed with the shell file to add them to. Codex runs a new hook only once you trust
it (install says how).
Content capture (prompts, tool details) stays off unless --capture-content. --protocol grpc points
claude-code, codex, gemini-cli or qwen-code at OTLP/gRPC (grpcPort, 4317) instead of OTLP/HTTP.
With no agent: lists the agents found on this machine and what installing each would change.
The endpoint is the installed service's port, else the config's.`,
  options: {
    scope: SCOPE_OPTION,
    protocol: PROTOCOL_OPTION,
    'capture-content': { type: 'boolean', help: 'let the agent export prompt text and tool details (off by default)' },
    'hooks-only': HOOKS_ONLY_OPTION,
    'otlp-only': OTLP_ONLY_OPTION,
    force: { type: 'boolean', help: 'replace values you set differently in the agent\'s settings, and Beacon\'s hook entries you edited (uninstall puts your values back)' },
    'dry-run': { type: 'boolean', help: 'say what would change, change nothing' },
    'configure-otlp': { type: 'boolean', help: "goose: set otel_exporter_otlp_endpoint/timeout in goose's config.yaml" },
    log: HOOKS_LOG_OPTION,
    config: CONFIG_OPTION,
  },
  examples: ['beacon install', 'beacon install codex', 'beacon install claude-code --hooks-only', 'beacon install gemini-cli --protocol grpc', 'beacon install claude-code --capture-content', 'beacon install gemini-cli --scope project', 'beacon install goose --configure-otlp'],
  positionals: ['goose', ...AGENT_IDS],
} as const satisfies CommandSpec;

export function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): number {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const scope = scopeOf(values.scope);
  const cfg = collectorConfig(values.config, env, { log: values.log });
  const { port } = collectorPort(undefined, cfg, env);
  const protocol = protocolOf(values.protocol);
  if (protocol === 'grpc' && cfg.grpcPort === 0) throw new BeaconError('usage', 'OTLP/gRPC is off in this config (grpcPort 0): set grpcPort (4317), or install with --protocol http');
  // An agent without gRPC (opencode, Copilot CLI) is set up over HTTP when the list is shown; named, it is refused.
  const targetFor = (a: { protocols: readonly Target['protocol'][] }): Target => agentTarget(a.protocols.includes(protocol) ? protocol : 'http', port, cfg);
  const name = positionals[0];
  const { hooksBundle } = installedEntryPoints();
  const hooks = { launcher: hooksLauncherPath(env), log: cfg.log, config: values.config ?? defaultConfigPath(env), node: process.execPath, bundle: hooksBundle };
  const agentOptions = { scope, env, cwd: process.cwd(), capture: values['capture-content'] === true, force: values.force === true, halves: halvesOf(values), hooks };
  if (name === undefined) {
    const found = AGENT_SPECS.map((a) => ({ a, why: detectAgent(a, { env, cwd: process.cwd() }) })).filter((f) => f.why);
    if (found.length === 0) out(`no agent found on this machine (none of ${AGENT_SPECS.flatMap((a) => a.binaries).join(', ')} on PATH, no config directory). Name one: beacon install <${['goose', ...AGENT_IDS].join('|')}>`);
    for (const { a, why } of found) {
      out(`${a.id}: ${a.title} (${why}); beacon install ${a.id} would:`);
      try {
        for (const line of installAgent(a, { ...agentOptions, target: targetFor(a), dryRun: true })) out(`  ${line.replace(/\n/g, '\n  ')}`);
      } catch (e) {
        out(`  refuse: ${(e as Error).message.replace(/\n/g, '\n  ')}`);
      }
    }
    out('goose: beacon install goose (its hooks plugin; --configure-otlp for its OTLP export)');
    return 0;
  }
  const agent = findAgent(name);
  if (agent) {
    if (!agent.protocols.includes(protocol)) throw new BeaconError('usage', `${agent.title} exports to Beacon over ${agent.protocols.map((p) => (p === 'grpc' ? 'OTLP/gRPC' : 'OTLP/HTTP')).join(' or ')} only: drop --protocol ${protocol}`);
    for (const line of installAgent(agent, { ...agentOptions, target: targetFor(agent), dryRun: values['dry-run'] === true })) out(line);
    return 0;
  }
  try {
    resolveHarness(name);
  } catch (e) {
    if (!/^unsupported harness/.test((e as Error).message)) throw e;
    throw new BeaconError('usage', `unsupported agent "${name}"${didYouMean(name, ['goose', ...AGENT_IDS])} (supported: ${['goose', ...AGENT_IDS].join(', ')})`);
  }
  if (protocol === 'grpc') throw new BeaconError('usage', 'goose exports over OTLP/HTTP only: drop --protocol grpc');
  const lines = installGoose(
    {
      scope, env, cwd: process.cwd(),
      log: cfg.log,
      config: values.config ?? defaultConfigPath(env),
      launcher: hooksLauncherPath(env),
      node: process.execPath,
      hooksBundle,
      endpoint: `http://127.0.0.1:${port}`,
      ...(cfg.otlpToken ? { otlpToken: cfg.otlpToken } : {}),
    },
    values['configure-otlp'] === true,
  );
  for (const line of lines) out(line);
  return 0;
}
