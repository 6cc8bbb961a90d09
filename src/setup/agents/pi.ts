import { randomBytes } from 'node:crypto';
import { isAbsolute, join } from 'node:path';
import { renderPiExtension, PI_EVENTS } from './pi-extension';
import { homeOf, kv, spanRequest, type AgentContext, type AgentSpec } from './spec';

/** Pi's agent dir: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent` (docs/agents/pi-facts.md §1). */
const agentDir = ({ env }: AgentContext) => (env.PI_CODING_AGENT_DIR && isAbsolute(env.PI_CODING_AGENT_DIR) ? env.PI_CODING_AGENT_DIR : join(homeOf(env), '.pi', 'agent'));

/**
 * Pi exports no OTLP at all: its one live path is an extension, a module Pi loads at start from
 * `<agent dir>/extensions/` (user) or `.pi/extensions/` (project). Beacon's is one file it owns whole.
 * Its JSON stream (`beacon stream pi`) and its session files (`beacon import pi`) need no setup.
 */
export const pi: AgentSpec = {
  id: 'pi',
  title: 'Pi',
  aliases: ['pi-coding-agent', 'pi-agent'],
  binaries: ['pi'],
  testedVersion: { package: '@mariozechner/pi-coding-agent', version: '0.73.1' },
  protocols: ['http'],
  configDirs: (ctx) => [agentDir(ctx)],
  settingsFile: () => undefined,
  keys: () => [],
  envLines: () => [],
  contentExport: 'no OTLP export: its extension sees the prompt, every tool call with its arguments and every model call',
  noOtlp: 'no OTLP to set up: Pi has no OpenTelemetry export. Its extension records the prompt, every tool call with its arguments and every model call with its tokens',
  contentState: () => 'no OTLP export; the extension forwards prompts and tool arguments (Beacon redacts secrets)',
  traps: () => [{ id: 'no-otlp', status: 'ok', message: 'Pi has no OTLP export: Beacon records it through its extension (and `beacon stream pi`, `beacon import pi`)' }],
  hooks: {
    file: () => undefined,
    events: PI_EVENTS,
    arrayPath: () => [],
    entry: () => undefined,
    commandsOf: () => [],
    plugin: (scope, ctx) => ({ path: scope === 'user' ? join(agentDir(ctx), 'extensions', 'beacon.js') : join(ctx.cwd, '.pi', 'extensions', 'beacon.js'), render: renderPiExtension }),
  },
  testRecord: (session, now) => ({
    signal: 'traces', encoding: 'json',
    request: spanRequest('pi', 'beacon.doctor', 'chat beacon-doctor-test', [kv('session.id', session), kv('gen_ai.request.model', 'beacon-doctor-test'), kv('gen_ai.usage.input_tokens', 0), kv('gen_ai.usage.output_tokens', 0)], now, { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') }),
  }),
};
