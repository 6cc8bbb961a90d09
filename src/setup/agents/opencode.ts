import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { renderOpencodePlugin } from './opencode-plugin';
import { judgeUrl, kv, spanRequest, tokenEnvLines, xdgConfig, type AgentSpec, type Finding } from './spec';

/** opencode reads opencode.jsonc when there is one, else opencode.json. */
const configIn = (dir: string) => (existsSync(join(dir, 'opencode.jsonc')) ? join(dir, 'opencode.jsonc') : join(dir, 'opencode.json'));

/**
 * opencode: `experimental.openTelemetry` in its config (`~/.config/opencode/opencode.json`; project
 * scope `./opencode.json`) turns the export on; the endpoint is read from the environment only
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`). It sends OTLP/JSON, no metrics, and its spans always carry the
 * prompts and responses (no switch).
 */
export const opencode: AgentSpec = {
  id: 'opencode',
  title: 'opencode',
  aliases: ['opencode-ai'],
  binaries: ['opencode'],
  testedVersion: { package: 'opencode-ai', version: '1.18.33' },
  protocols: ['http'],
  configDirs: ({ env }) => [join(xdgConfig(env), 'opencode')],
  settingsFile: (scope, { env, cwd }) => ({ format: 'json', path: configIn(scope === 'user' ? join(xdgConfig(env), 'opencode') : cwd) }),
  keys: () => [{ path: ['experimental', 'openTelemetry'], value: true, why: 'opencode exports nothing without it' }],
  envLines: (t) => [{ name: 'OTEL_EXPORTER_OTLP_ENDPOINT', value: t.base }, ...tokenEnvLines(t)],
  contentExport: 'everything, whatever the flag: its ai.* spans carry the prompts, responses and tool arguments',
  contentState: () => 'content always exported: its spans carry prompts, responses and tool arguments (no switch; Beacon redacts secrets)',
  traps({ env }, t): Finding[] {
    const out: Finding[] = [];
    const e = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    if (e && !judgeUrl(e, `${t.base}/v1/traces`).ok) out.push({ id: 'env-traces', status: 'fail', message: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=${e} in this shell sends its spans elsewhere`, fix: 'unset it' });
    out.push({ id: 'exit', status: 'ok', message: '`opencode run` can lose its last batch of spans at exit; `opencode serve` (with `opencode run --attach`) does not' });
    return out;
  },
  // Plugins, not command hooks: one file Beacon owns whole, in the directory opencode loads plugins
  // from (user: ~/.config/opencode/plugins/, project: .opencode/plugins/).
  hooks: {
    file: () => undefined,
    events: ['session.created', 'session.idle', 'chat.message', 'tool.execute.before', 'tool.execute.after'],
    arrayPath: () => [],
    entry: () => undefined,
    commandsOf: () => [],
    plugin: (scope, { env, cwd }) => ({ path: scope === 'user' ? join(xdgConfig(env), 'opencode', 'plugins', 'beacon.js') : join(cwd, '.opencode', 'plugins', 'beacon.js'), render: renderOpencodePlugin }),
  },
  testRecord: (session, now) => ({
    signal: 'traces', encoding: 'json',
    request: spanRequest('opencode', 'ai', 'ai.streamText.doStream', [
      kv('session.id', session), kv('ai.model.id', 'beacon-doctor-test'), kv('ai.model.provider', 'beacon.doctor'),
      kv('ai.usage.inputTokens', 0), kv('ai.usage.outputTokens', 0), kv('ai.response.finishReason', 'stop'),
    ], now, { traceId: randomBytes(16).toString('hex'), spanId: randomBytes(8).toString('hex') }),
  }),
};
