import { join } from 'node:path';
import { HOOK_TIMEOUT_S, matcherGroup, matcherGroupCommands } from './hook-spec';
import { PROTOCOL_NAMES, homeOf, judgeUrl, kv, logsRequest, tokenEnvLines, type AgentSpec, type Finding, type TestedVersion } from './spec';

/**
 * Gemini CLI and its fork Qwen Code: `telemetry` in `~/.<dir>/settings.json` (project scope:
 * `./.<dir>/settings.json`). Their default is gRPC on 4317 (`otlpProtocol: grpc`, protobuf); over HTTP
 * they send OTLP/JSON only. Beacon serves both; install sets the one chosen (`--protocol`, HTTP first).
 * `logPrompts` defaults to true in both, so Beacon sets it explicitly.
 */
export function geminiStyleAgent(o: { id: string; title: string; aliases: string[]; bin: string; dir: string; envPrefix: string; service: string; eventPrefix: string; hookEvents: readonly string[]; toolEvents: readonly string[]; testedVersion?: TestedVersion }): AgentSpec {
  const settingsFile: AgentSpec['settingsFile'] = (scope, { env, cwd }) => ({ format: 'json', path: join(scope === 'user' ? homeOf(env) : cwd, o.dir, 'settings.json') });
  const toolEvents = new Set(o.toolEvents);
  return {
    id: o.id,
    title: o.title,
    aliases: o.aliases,
    binaries: [o.bin],
    ...(o.testedVersion ? { testedVersion: o.testedVersion } : {}),
    protocols: ['http', 'grpc'],
    configDirs: ({ env }) => [join(homeOf(env), o.dir)],
    settingsFile,
    keys: (t, capture) => [
      { path: ['telemetry', 'enabled'], value: true, why: 'telemetry is off without it' },
      { path: ['telemetry', 'target'], value: 'local' },
      { path: ['telemetry', 'otlpEndpoint'], value: t.base },
      { path: ['telemetry', 'otlpProtocol'], value: t.protocol, why: t.protocol === 'http' ? `its default is gRPC (port 4317); this setup is OTLP/HTTP` : 'the endpoint is OTLP/gRPC' },
      { path: ['telemetry', 'logPrompts'], value: capture, content: true },
    ],
    envLines: (t) => tokenEnvLines(t),
    contentExport: 'the text of your prompts (user_prompt records)',
    contentState: (values) => (values(['telemetry', 'logPrompts']) === false ? 'content capture off: no prompt text (logPrompts false)' : `content capture on: prompt text exported (logPrompts ${values(['telemetry', 'logPrompts']) === undefined ? `unset: ${o.title} defaults to true` : 'true'})`),
    traps({ env }, t, values) {
      const out: Finding[] = [];
      const e = (k: string) => env[`${o.envPrefix}_${k}`];
      if ((e('ENABLED') ?? '').toLowerCase() === 'false' || e('ENABLED') === '0') out.push({ id: 'env', status: 'fail', message: `${o.envPrefix}_ENABLED=${e('ENABLED')} in this shell turns its telemetry off`, fix: `unset ${o.envPrefix}_ENABLED` });
      if (e('OTLP_ENDPOINT') && !judgeUrl(e('OTLP_ENDPOINT'), t.base).ok) out.push({ id: 'env', status: 'fail', message: `${o.envPrefix}_OTLP_ENDPOINT in this shell overrides the settings: ${judgeUrl(e('OTLP_ENDPOINT'), t.base).message}`, fix: `unset ${o.envPrefix}_OTLP_ENDPOINT` });
      if (e('OTLP_PROTOCOL') && e('OTLP_PROTOCOL') !== t.protocol) out.push({ id: 'env', status: 'fail', message: `${o.envPrefix}_OTLP_PROTOCOL=${e('OTLP_PROTOCOL')} in this shell overrides the settings: this setup is ${PROTOCOL_NAMES[t.protocol]}`, fix: `unset ${o.envPrefix}_OTLP_PROTOCOL` });
      const protocol = values(['telemetry', 'otlpProtocol']);
      const install = `beacon install ${o.id}${t.protocol === 'grpc' ? ' --protocol grpc' : ''}`;
      if ((protocol ?? 'grpc') !== t.protocol) out.push({ id: 'protocol', status: 'fail', message: `otlpProtocol is ${protocol === undefined ? 'unset (gRPC, its default)' : JSON.stringify(protocol)}: this setup is ${PROTOCOL_NAMES[t.protocol]} on ${t.port}`, fix: `${install}${protocol === undefined ? '' : ' --force'}` });
      else if (t.protocol === 'http') out.push({ id: 'wire', status: 'ok', message: `${o.title} over HTTP sends OTLP/JSON only (no protobuf): Beacon reads it` });
      else out.push({ id: 'wire', status: 'ok', message: `${o.title} over gRPC sends protobuf to ${t.base}` });
      return out;
    },
    // Hooks in the same settings file (`hooks.<Event>`, Claude's schema), each named, timeouts in
    // milliseconds (both CLIs' unit, unlike Claude's seconds).
    hooks: {
      file: settingsFile,
      events: o.hookEvents,
      arrayPath: (event) => ['hooks', event],
      entry: (event, command) => matcherGroup(toolEvents, { type: 'command', command, name: `beacon-${event}`, timeout: HOOK_TIMEOUT_S * 1000 }, event),
      commandsOf: matcherGroupCommands,
    },
    testRecord: (session, now) => ({
      signal: 'logs', encoding: 'json',
      request: logsRequest(o.service, o.service, [
        kv('event.name', `${o.eventPrefix}.api_response`), kv('session.id', session), kv('model', 'beacon-doctor-test'),
        kv('input_token_count', 0), kv('output_token_count', 0), kv('cached_content_token_count', 0), kv('thoughts_token_count', 0), kv('duration_ms', 1),
      ], now, { body: 'API response from beacon-doctor-test.', resource: [kv('session.id', session)] }),
    }),
  };
}
