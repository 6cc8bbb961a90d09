import { join } from 'node:path';
import { getPath } from './settings-edit';
import { homeOf, judgeUrl, kv, logsRequest, type AgentSpec, type Finding } from './spec';

const codexHome = (env: NodeJS.ProcessEnv) => env.CODEX_HOME || join(homeOf(env), '.codex');
const SIGNALS = [['exporter', 'logs'], ['trace_exporter', 'traces'], ['metrics_exporter', 'metrics']] as const;

/**
 * Codex: `$CODEX_HOME/config.toml` (default `~/.codex`), its `[otel]` table — one exporter per
 * signal, each a full per-signal URL. Without `metrics_exporter` Codex sends its metrics to
 * OpenAI. User scope only: Beacon does not rely on a project-scoped Codex config.
 */
export const codex: AgentSpec = {
  id: 'codex',
  title: 'Codex CLI',
  aliases: ['codex-cli', 'openai-codex'],
  binaries: ['codex'],
  protocols: ['http'],
  configDirs: ({ env }) => [codexHome(env)],
  settingsFile: (scope, { env }) => (scope === 'user' ? { format: 'toml', path: join(codexHome(env), 'config.toml') } : undefined),
  keys: (t, capture) => [
    ...SIGNALS.map(([key, signal]) => ({
      path: ['otel', key], value: { 'otlp-http': { endpoint: `${t.base}/v1/${signal}`, protocol: 'binary', ...(t.token ? { headers: { authorization: `Bearer ${t.token}` } } : {}) } },
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
      const url = getPath(v, ['otlp-http', 'endpoint']);
      if (url === undefined && getPath(v, ['otlp-grpc']) !== undefined) out.push({ id: `${signal}-exporter`, status: 'fail', message: `[otel] ${key} is otlp-grpc: this collector serves OTLP/HTTP on ${t.port}`, fix: 'beacon install codex --force' });
      else if (url !== undefined && !judgeUrl(url, `${t.base}/v1/${signal}`).ok) out.push({ id: `${signal}-exporter`, status: 'fail', message: `[otel] ${key} exports to ${judgeUrl(url, `${t.base}/v1/${signal}`).message} (Codex takes the full per-signal URL)`, fix: 'beacon install codex --force' });
    }
    return out;
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
