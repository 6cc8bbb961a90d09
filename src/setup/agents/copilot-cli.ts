import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { HOOK_TIMEOUT_S } from './hook-spec';
import { homeOf, kv, spanRequest, tokenEnvLines, type AgentSpec } from './spec';

/**
 * GitHub Copilot CLI: configured by its environment only (`COPILOT_OTEL_ENABLED`, the standard
 * `OTEL_EXPORTER_OTLP_*`); it has no settings key for telemetry. It sends spans and metrics (no
 * logs), OTLP/JSON unless `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`.
 */
const copilotHome = (env: NodeJS.ProcessEnv) => env.COPILOT_HOME || join(homeOf(env), '.copilot');

export const copilotCli: AgentSpec = {
  id: 'copilot-cli',
  title: 'GitHub Copilot CLI',
  aliases: ['copilot', 'github-copilot'],
  binaries: ['copilot'],
  testedVersion: { package: '@github/copilot', version: '1.0.102' },
  protocols: ['http'],
  configDirs: ({ env }) => [copilotHome(env)],
  settingsFile: () => undefined,
  keys: () => [],
  envLines: (t, capture) => [
    { name: 'COPILOT_OTEL_ENABLED', value: 'true' },
    { name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: t.base },
    ...tokenEnvLines(t),
    ...(capture ? [{ name: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT', value: 'true', content: true }] : []),
  ],
  contentExport: 'the messages and tool arguments and results on its chat and execute_tool spans',
  contentState: (_v, env) => ((env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? '').toLowerCase() === 'true'
    ? 'content capture on (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true in this shell): messages and tool arguments exported'
    : 'content capture off: no messages; tool calls still carry their command (github.copilot.tool.parameters)'),
  traps: ({ env }, t) => {
    const p = (env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').toLowerCase();
    return p === 'grpc' ? [{ id: 'protocol', status: 'fail', message: `OTEL_EXPORTER_OTLP_PROTOCOL=grpc in this shell: this collector serves OTLP/HTTP on ${t.port}`, fix: 'unset it (Copilot then sends http/json) or set http/protobuf' }] : [];
  },
  // Its hooks, unlike its telemetry, are in a settings file: `$COPILOT_HOME/settings.json` `hooks`,
  // camelCase events, one flat command object each (`bash`, `timeoutSec`). User scope only here: a
  // repository's `.github/hooks/*.json` runs only in a folder the user trusted.
  hooks: {
    file: (scope, { env }) => (scope === 'user' ? { format: 'json', path: join(copilotHome(env), 'settings.json') } : undefined),
    events: ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'agentStop', 'sessionEnd'],
    arrayPath: (event) => ['hooks', event],
    entry: (_event, command) => ({ type: 'command', bash: command, timeoutSec: HOOK_TIMEOUT_S }),
    commandsOf: (element) => (typeof (element as { bash?: unknown } | null)?.bash === 'string' ? [(element as { bash: string }).bash] : []),
  },
  testRecord: (session, now, env) => ({
    // Copilot sends OTLP/JSON unless told http/protobuf: the test goes the way its export goes.
    signal: 'traces', encoding: (env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').toLowerCase() === 'http/protobuf' ? 'protobuf' : 'json',
    request: spanRequest('github-copilot', 'github.copilot', 'chat beacon-doctor-test', [
      kv('gen_ai.operation.name', 'chat'), kv('gen_ai.provider.name', 'beacon'), kv('gen_ai.conversation.id', session),
      kv('gen_ai.request.model', 'beacon-doctor-test'), kv('gen_ai.response.model', 'beacon-doctor-test'),
      kv('gen_ai.usage.input_tokens', 0), kv('gen_ai.usage.output_tokens', 0),
    ], now, { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') }),
  }),
};
