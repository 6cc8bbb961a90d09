import { join } from 'node:path';
import { otlpHeadersValue } from '../../config/otlp-token';
import { HOOK_TIMEOUT_S, matcherGroup, matcherGroupCommands } from './hook-spec';
import { PROTOCOL_NAMES, homeOf, judgeUrl, kv, logsRequest, type AgentSpec, type Finding } from './spec';

const on = (v: unknown) => v === '1' || v === 'true';
const claudeDir = (env: NodeJS.ProcessEnv) => env.CLAUDE_CONFIG_DIR || join(homeOf(env), '.claude');
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);

/**
 * Claude Code: everything is an environment variable, and `~/.claude/settings.json`'s `env` object
 * sets them for every session (project scope: `.claude/settings.local.json`, the file Claude Code
 * keeps out of git). Its log records are what Beacon reads; traces are a beta behind another switch.
 */
export const claudeCode: AgentSpec = {
  id: 'claude-code',
  title: 'Claude Code',
  aliases: ['claude', 'claude_code'],
  binaries: ['claude'],
  testedVersion: { package: '@anthropic-ai/claude-code', version: '2.1.332' },
  protocols: ['http', 'grpc'],
  configDirs: ({ env }) => [claudeDir(env)],
  settingsFile(scope, { env, cwd }) {
    const dir = scope === 'user' ? claudeDir(env) : join(cwd, '.claude');
    return { format: 'json', path: join(dir, scope === 'user' ? 'settings.json' : 'settings.local.json') };
  },
  keys: (t, capture) => [
    { path: ['env', 'CLAUDE_CODE_ENABLE_TELEMETRY'], value: '1', why: 'telemetry is off without it' },
    { path: ['env', 'OTEL_LOGS_EXPORTER'], value: 'otlp', why: 'its log records (model calls, tool calls) are not exported without it' },
    { path: ['env', 'OTEL_METRICS_EXPORTER'], value: 'otlp' },
    { path: ['env', 'OTEL_EXPORTER_OTLP_PROTOCOL'], value: t.protocol === 'grpc' ? 'grpc' : 'http/protobuf', why: 'Claude Code needs a protocol set: without one it exports nothing' },
    { path: ['env', 'OTEL_EXPORTER_OTLP_ENDPOINT'], value: t.base },
    ...(t.token ? [{ path: ['env', 'OTEL_EXPORTER_OTLP_HEADERS'], value: otlpHeadersValue(t.token), secret: true, why: 'the collector answers 401 without its otlpToken' }] : []),
    { path: ['env', 'OTEL_LOG_USER_PROMPTS'], value: capture ? '1' : '0', content: true },
    { path: ['env', 'OTEL_LOG_TOOL_DETAILS'], value: capture ? '1' : '0', content: true },
  ],
  envLines: () => [],
  contentExport: 'the text of your prompts (user_prompt) and tool details: command lines, file paths, MCP server and tool names (tool_result)',
  contentState(values) {
    const prompts = on(values(['env', 'OTEL_LOG_USER_PROMPTS']));
    const tools = on(values(['env', 'OTEL_LOG_TOOL_DETAILS']));
    return prompts || tools
      ? `content capture on: ${[prompts && 'prompt text', tools && 'tool details (commands, paths)'].filter(Boolean).join(' and ')} exported`
      : 'content capture off: prompts are exported redacted, tool calls without their command lines';
  },
  traps(_ctx, t, values) {
    const out: Finding[] = [];
    const protocol = values(['env', 'OTEL_EXPORTER_OTLP_PROTOCOL']);
    const want = t.protocol === 'grpc' ? 'grpc' : 'http/protobuf';
    const install = `beacon install claude-code${t.protocol === 'grpc' ? ' --protocol grpc' : ''}`;
    if (protocol === undefined) out.push({ id: 'protocol', status: 'fail', message: 'no OTEL_EXPORTER_OTLP_PROTOCOL in its settings env: Claude Code exports nothing without a protocol', fix: `${install} (sets ${want})` });
    else if ((protocol === 'grpc') !== (t.protocol === 'grpc')) out.push({ id: 'protocol', status: 'fail', message: `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol}: this setup is ${PROTOCOL_NAMES[t.protocol]} on ${t.port}`, fix: `${install} --force (sets ${want})` });
    const endpoint = judgeUrl(values(['env', 'OTEL_EXPORTER_OTLP_ENDPOINT']), t.base);
    if (!endpoint.ok && values(['env', 'OTEL_EXPORTER_OTLP_ENDPOINT']) !== undefined) out.push({ id: 'endpoint', status: 'fail', message: `exports to ${endpoint.message}`, fix: 'beacon install claude-code --force' });
    return out;
  },
  // Its hooks sit in the same settings file as its telemetry switches (`hooks.<Event>`), timeouts in seconds.
  hooks: {
    file: (scope, ctx) => claudeCode.settingsFile(scope, ctx),
    events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SessionEnd'],
    arrayPath: (event) => ['hooks', event],
    entry: (event, command) => matcherGroup(TOOL_EVENTS, { type: 'command', command, timeout: HOOK_TIMEOUT_S }, event),
    commandsOf: matcherGroupCommands,
  },
  testRecord: (session, now) => ({
    signal: 'logs', encoding: 'protobuf',
    request: logsRequest('claude-code', 'com.anthropic.claude_code.events', [
      kv('event.name', 'api_request'), kv('session.id', session), kv('model', 'beacon-doctor-test'),
      kv('input_tokens', 0), kv('output_tokens', 0), kv('cache_read_tokens', 0), kv('cache_creation_tokens', 0),
      kv('cost_usd', 0.0), kv('duration_ms', 1), kv('event.timestamp', new Date(Number(now / 1_000_000n)).toISOString()),
    ], now, { body: 'claude_code.api_request' }),
  }),
};
