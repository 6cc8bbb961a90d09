import { collectorConfig } from '../../config/config';
import { defaultConfigPath, hooksLauncherPath } from '../../config/paths';
import { isWildcard } from '../../config/hosts';
import { AGENT_IDS, namedAgent } from '../../setup/agents/registry';
import type { Check } from '../../setup/doctor';
import { doctorFound, doctorNamed, type DoctorRun } from '../../setup/doctor-run';
import { defaultServiceKind, serviceState } from '../../setup/service';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { CONFIG_OPTION, HOOKS_LOG_OPTION, agentTarget, collectorPort } from '../setup-options';

export const spec = {
  name: 'beacon doctor',
  summary: 'check, one by one, that telemetry will arrive (the agents found here, or the one named)',
  usage: `[${AGENT_IDS.join('|')}] [--json] [--send-test] [--log PATH] [--config FILE] [--port N]`,
  description: `Checks, one by one, that telemetry will arrive from the agents found on this machine (on
PATH, their config directory, goose's app or Beacon's plugin for it), and only those: the collector
(and that it writes the log you read), the service and the event log; goose in full (its version
beside 1.51, its config.yaml and environment, the hooks plugin, by running its launcher), each other
agent on one line. None
found: it says so. Named an agent, checks that agent: set up or not, its settings pointing at this
collector's port and protocol, its version beside the one Beacon's agents lab tested, the traps its
version has, content capture on or off, and the events that arrived since its setup; then its hooks: Beacon's entry on every event (each scope), Codex's
feature switch and trust, the launcher (run only when it is Beacon's own and sound), the newest
hook event or why there is none, hook failures.
Exit 0 when nothing failed, 1 otherwise. It writes nothing — unless --send-test: then it posts a test
record (goose: a span and a hook event; another agent: a record shaped like that agent's, over its
protocol, and a harmless tool call through Beacon's own hook command) and finds it in the log (it stays there, under a beacon-doctor-test-… session).`,
  options: {
    json: { type: 'boolean', help: 'the checks as one JSON document' },
    'send-test': { type: 'boolean', help: 'send a test record and confirm it landed in the log' },
    log: HOOKS_LOG_OPTION,
    config: CONFIG_OPTION,
    port: { type: 'string', arg: 'N', help: "the collector's port (default: the installed service's, else the config's)" },
  },
  examples: ['beacon doctor', 'beacon doctor codex', 'beacon doctor --send-test claude-code', 'beacon doctor --json'],
  positionals: AGENT_IDS,
} as const satisfies CommandSpec;

export async function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): Promise<number> {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const agent = positionals[0] === undefined ? undefined : namedAgent(positionals[0], spec.name);
  const cfg = collectorConfig(values.config, env, { log: values.log });
  const { port, source } = collectorPort(values.port, cfg, env);
  const run: DoctorRun = {
    env, cwd: process.cwd(), host: isWildcard(cfg.host) ? '127.0.0.1' : cfg.host, port, portSource: source, log: cfg.log,
    config: values.config ?? defaultConfigPath(env), launcher: hooksLauncherPath(env),
    targets: { http: agentTarget('http', port, cfg), grpc: agentTarget('grpc', port, cfg) },
    service: () => serviceState(defaultServiceKind(), env),
    sendTest: values['send-test'] === true,
    ...(cfg.otlpToken ? { otlpToken: cfg.otlpToken } : {}),
  };
  const checks = agent ? await doctorNamed(agent, run) : await doctorFound(run);
  const ok = checks.every((c) => c.status !== 'fail');
  if (values.json) out(JSON.stringify({ ok, checks }));
  else for (const c of checks) out(formatCheck(c));
  return ok ? 0 : 1;
}

function formatCheck(c: Check): string {
  const tag = { ok: ' ok ', warn: 'warn', fail: 'FAIL' }[c.status];
  return `[${tag}] ${c.id.padEnd(16)} ${c.message}${c.fix && c.status !== 'ok' ? `\n       fix: ${c.fix}` : ''}`;
}
