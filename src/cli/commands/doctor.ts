import { runDoctor, type Check } from '../../setup/doctor';
import { defaultServiceKind, serviceState } from '../../setup/service';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { CONFIG_OPTION, HOOKS_LOG_OPTION, collectorConfig, collectorPort } from '../setup-options';

export const spec = {
  name: 'beacon doctor',
  summary: 'check, one by one, that goose telemetry will arrive',
  usage: '[--json] [--send-test] [--log PATH] [--config FILE] [--port N]',
  description: `Checks, one by one, that goose telemetry will arrive: the collector (and that it writes the log you
read), the service, goose's config.yaml and environment, the hooks plugin (by running its launcher),
and the event log. Exit 0 when nothing failed, 1 otherwise. It writes nothing — unless --send-test:
then it posts a test span to the collector and runs the installed pre-tool hook with a test
payload, and finds both in the log (they stay there, under a beacon-doctor-test-… session).`,
  options: {
    json: { type: 'boolean', help: 'the checks as one JSON document' },
    'send-test': { type: 'boolean', help: 'send a test span and a test hook event, and confirm both landed in the log' },
    log: HOOKS_LOG_OPTION,
    config: CONFIG_OPTION,
    port: { type: 'string', arg: 'N', help: "the collector's port (default: the installed service's, else the config's)" },
  },
  examples: ['beacon doctor', 'beacon doctor --send-test', 'beacon doctor --json'],
} as const satisfies CommandSpec;

export async function run(argv: string[], { env, out }: Pick<CommandIO, 'env' | 'out'>): Promise<number> {
  const parsed = parseCommand(spec, argv, out);
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
