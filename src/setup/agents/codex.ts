import { join } from 'node:path';
import { HOOK_TIMEOUT_S, matcherGroup, matcherGroupCommands } from './hook-spec';
import { getPath } from './settings-edit';
import { PROTOCOL_NAMES, homeOf, judgeUrl, kv, logsRequest, type AgentSpec, type Finding } from './spec';

const codexHome = (env: NodeJS.ProcessEnv) => env.CODEX_HOME || join(homeOf(env), '.codex');
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse']);
const SIGNALS = [['exporter', 'logs'], ['trace_exporter', 'traces'], ['metrics_exporter', 'metrics']] as const;

/**
 * Codex: `$CODEX_HOME/config.toml` (default `~/.codex`), its `[otel]` table — one exporter per
 * signal: `otlp-http` with a full per-signal URL, or `otlp-grpc` with the gRPC endpoint (one for all
 * signals, the service names the signal). Without `metrics_exporter` Codex sends its metrics to
 * OpenAI. User scope only: Beacon does not rely on a project-scoped Codex config.
 */
export const codex: AgentSpec = {
  id: 'codex',
  title: 'Codex CLI',
  aliases: ['codex-cli', 'openai-codex'],
  binaries: ['codex'],
  testedVersion: { package: '@openai/codex', version: '0.171.0' },
  protocols: ['http', 'grpc'],
  configDirs: ({ env }) => [codexHome(env)],
  settingsFile: (scope, { env }) => (scope === 'user' ? { format: 'toml', path: join(codexHome(env), 'config.toml') } : undefined),
  keys: (t, capture) => [
    ...SIGNALS.map(([key, signal]) => ({
      path: ['otel', key],
      value: t.protocol === 'grpc'
        ? { 'otlp-grpc': { endpoint: t.base, ...(t.token ? { headers: { authorization: `Bearer ${t.token}` } } : {}) } }
        : { 'otlp-http': { endpoint: `${t.base}/v1/${signal}`, protocol: 'binary', ...(t.token ? { headers: { authorization: `Bearer ${t.token}` } } : {}) } },
      ...(t.token ? { secret: true } : {}),
      ...(key === 'metrics_exporter' ? { why: 'without it Codex sends its metrics to OpenAI' } : key === 'exporter' ? { why: 'its log records (model calls, tool calls) are what Beacon reads' } : {}),
    })),
    { path: ['otel', 'log_user_prompt'], value: capture, content: true },
  ],
  envLines: () => [],
  contentExport: 'the text of your prompts (codex.user_prompt); tool arguments and output are exported whatever this says',
  contentState: (values) => (values(['otel', 'log_user_prompt']) === true
    ? 'content capture on: prompt text exported (tool arguments and output always are)'
    : 'content capture off: no prompt text (Codex exports tool arguments and output regardless)'),
  traps({ env }, t, values) {
    const out: Finding[] = [];
    if ((env.OTEL_EXPORTER_OTLP_COMPRESSION ?? '') !== '') {
      out.push({ id: 'compression', status: 'fail', message: `OTEL_EXPORTER_OTLP_COMPRESSION=${env.OTEL_EXPORTER_OTLP_COMPRESSION} in this shell: Codex then exports nothing at all ("Could not create otel exporter")`, fix: 'unset OTEL_EXPORTER_OTLP_COMPRESSION where Codex starts' });
    }
    for (const [key, signal] of SIGNALS) {
      const v = values(['otel', key]);
      if (v === undefined) continue;
      const kind = t.protocol === 'grpc' ? 'otlp-grpc' : 'otlp-http';
      const other = t.protocol === 'grpc' ? 'otlp-http' : 'otlp-grpc';
      const want = t.protocol === 'grpc' ? t.base : `${t.base}/v1/${signal}`;
      const fix = `beacon install codex${t.protocol === 'grpc' ? ' --protocol grpc' : ''} --force`;
      const url = getPath(v, [kind, 'endpoint']);
      if (url === undefined && getPath(v, [other]) !== undefined) out.push({ id: `${signal}-exporter`, status: 'fail', message: `[otel] ${key} is ${other}: this setup is ${PROTOCOL_NAMES[t.protocol]} on ${t.port}`, fix });
      else if (url !== undefined && !judgeUrl(url, want).ok) out.push({ id: `${signal}-exporter`, status: 'fail', message: `[otel] ${key} exports to ${judgeUrl(url, want).message}${t.protocol === 'http' ? ' (Codex takes the full per-signal URL)' : ''}`, fix });
    }
    return out;
  },
  // Claude's hook schema in a file of its own ($CODEX_HOME/hooks.json; a trusted project's
  // .codex/hooks.json), no failure event (a failed call is a PostToolUse), timeouts in seconds. Codex
  // runs none of them until `[features] hooks = true` is set and the hooks are trusted.
  hooks: {
    file: (scope, { env, cwd }) => ({ format: 'json', path: scope === 'user' ? join(codexHome(env), 'hooks.json') : join(cwd, '.codex', 'hooks.json') }),
    events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop', 'SessionEnd'],
    arrayPath: (event) => ['hooks', event],
    entry: (event, command) => matcherGroup(TOOL_EVENTS, { type: 'command', command, timeout: HOOK_TIMEOUT_S }, event),
    commandsOf: matcherGroupCommands,
    switches: (_scope, { env }) => [{ file: { format: 'toml', path: join(codexHome(env), 'config.toml') }, keys: [{ path: ['features', 'hooks'], value: true, why: 'Codex runs no hook without it' }] }],
    afterInstall: 'Codex runs a new or changed hook only once it is trusted: review Beacon\'s hooks in the Codex TUI (/hooks), or pass --dangerously-bypass-hook-trust to codex exec',
  },
  testRecord: (session, now) => ({
    signal: 'logs', encoding: 'protobuf',
    request: logsRequest('codex_exec', 'codex_otel.log_only', [
      kv('event.name', 'codex.sse_event'), kv('event.kind', 'response.completed'), kv('conversation.id', session),
      kv('model', 'beacon-doctor-test'), kv('input_token_count', '0'), kv('output_token_count', '0'),
      kv('cached_token_count', 0), kv('reasoning_token_count', 0), kv('originator', 'beacon_doctor'),
    ], now),
  }),
};
