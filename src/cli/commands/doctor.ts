import { collectorConfig } from '../../config/config';
import { defaultConfigPath, hooksLauncherPath } from '../../config/paths';
import { isWildcard, hostPort } from '../../config/hosts';
import { agentDoctorChecks, agentSummary, agentValues, configuredTarget, grpcListenerCheck } from '../../setup/agent-doctor';
import { AGENT_IDS, AGENT_SPECS, findAgent } from '../../setup/agents/registry';
import { SEND_TEST_WITHHELD, collectorCheck, runDoctor, type Check } from '../../setup/doctor';
import { defaultServiceKind, serviceState } from '../../setup/service';
import { BeaconError } from '../../model/errors';
import { didYouMean } from '../../model/suggest';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { CONFIG_OPTION, HOOKS_LOG_OPTION, agentTarget, collectorPort } from '../setup-options';

export const spec = {
  name: 'beacon doctor',
  summary: 'check, one by one, that telemetry will arrive (goose, or the agent named)',
  usage: '[claude-code|codex|gemini-cli|qwen-code|opencode|copilot-cli|pi] [--json] [--send-test] [--log PATH] [--config FILE] [--port N]',
  description: `Checks, one by one, that goose telemetry will arrive: the collector (and that it writes the log you
read), the service, goose's config.yaml and environment, the hooks plugin (by running its launcher),
and the event log; then one line per other agent found on this machine. Named an agent, checks that
agent: set up or not, its settings pointing at this collector's port and protocol, the traps its
version has, content capture on or off, and the last event that arrived from it; then its hooks:
Beacon's entry on every event (each scope), Codex's feature switch and trust, the launcher (run only
when it is Beacon's own and sound), the newest hook event or why there is none, hook failures.
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
  positionals: ['goose', ...AGENT_IDS],
} as const satisfies CommandSpec;

export async function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): Promise<number> {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const name = positionals[0];
  const agent = name === undefined || /^goose$/i.test(name) ? undefined : findAgent(name);
  if (name !== undefined && !agent && !/^goose$/i.test(name)) throw new BeaconError('usage', `${spec.name}: unknown agent "${name}"${didYouMean(name, ['goose', ...AGENT_IDS])} (expected ${['goose', ...AGENT_IDS].join(', ')})`);
  const cfg = collectorConfig(values.config, env, { log: values.log });
  const { port, source } = collectorPort(values.port, cfg, env);
  const host = isWildcard(cfg.host) ? '127.0.0.1' : cfg.host;
  const targets = { http: agentTarget('http', port, cfg), grpc: agentTarget('grpc', port, cfg) };
  const cwd = process.cwd();
  let checks: Check[];
  if (agent) {
    const base = `http://${hostPort(host, port)}`;
    const ctx = { env, cwd, host, port, portSource: source, log: cfg.log };
    const settings = agentValues(agent, { env, cwd });
    const target = configuredTarget(agent, { env, cwd }, targets, settings);
    const config = values.config ?? defaultConfigPath(env);
    const launcher = hooksLauncherPath(env);
    const agentDoctor = agentDoctorChecks(agent, { env, cwd, target, log: cfg.log, config, launcher }, settings);
    const collector = await collectorCheck(base, ctx, 1500);
    checks = [collector.check, ...(await agentDoctor)];
    // Set up for gRPC: is the collector's gRPC listener where the agent sends?
    if (target.protocol === 'grpc' && collector.health) checks.splice(1, 0, grpcListenerCheck(agent, target, collector.health.grpc));
    // Loaded for --send-test only: its OTLP encoder is protobufjs (45 modules, ~30 ms of every doctor run).
    if (values['send-test'] && collector.untrusted) checks.push(SEND_TEST_WITHHELD);
    else if (values['send-test']) checks.push(...(await (require('../../setup/agent-send-test') as typeof import('../../setup/agent-send-test')).agentSendTest(agent, base, cfg.log, env, target, { cwd, config, launcher })));
  } else {
    const doctor = runDoctor({
      env, cwd, host, port, portSource: source,
      log: cfg.log,
      service: () => serviceState(defaultServiceKind(), env),
      sendTest: values['send-test'] === true,
      ...(cfg.otlpToken ? { otlpToken: cfg.otlpToken } : {}),
    });
    // One line per other agent found on this machine, worked out while doctor's probes run.
    const agents = name === undefined
      ? AGENT_SPECS.map((a) => agentSummary(a, { env, cwd, targets, log: cfg.log })).filter((c): c is Check => c !== undefined)
      : [];
    checks = [...(await doctor), ...agents];
  }
  const ok = checks.every((c) => c.status !== 'fail');
  if (values.json) out(JSON.stringify({ ok, checks }));
  else for (const c of checks) out(formatCheck(c));
  return ok ? 0 : 1;
}

function formatCheck(c: Check): string {
  const tag = { ok: ' ok ', warn: 'warn', fail: 'FAIL' }[c.status];
  return `[${tag}] ${c.id.padEnd(16)} ${c.message}${c.fix && c.status !== 'ok' ? `\n       fix: ${c.fix}` : ''}`;
}
