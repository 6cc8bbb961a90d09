import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { BeaconRecord, NormalizedEvent } from '../../src/model/record';
import { EventLog } from '../../src/store/log/event-log';
import { decodeJsonLogs, decodeProtoLogs } from '../../src/receiver/signals/logs';
import { decodeJsonMetrics, decodeProtoMetrics } from '../../src/receiver/signals/metrics';
import { decodeJsonTraces, decodeProtoTraces } from '../../src/receiver/signals/traces';
import { logEvents, metricEvents, spanEvents } from '../../src/sources/dispatch';
import { toRows } from '../../src/ingest/rows';
import { AGENT_EXPECTATIONS, assertAgentRecords } from '../helpers/agent-expectations';
import { repoRoot, tempDir } from '../helpers/paths';
import { claudeToolUse, classifyClaudeTool } from '../../src/sources/claude-code/tools';
import { classifyGeminiStyleTool } from '../../src/sources/gemini-tools';

/**
 * Every OTLP request each real agent CLI sent in one run against the mock model (recorded by the
 * agents lab, byte for byte), read by Beacon's decoders and sources as the receiver does. The same
 * assertions run against the live CLIs in test/integration/agents-lab.test.ts; these keep the
 * sources honest where a CLI cannot be installed.
 */
function eventsOf(agent: string): NormalizedEvent[] {
  const dir = join(repoRoot(), 'test', 'fixtures', 'agents', agent);
  const out: NormalizedEvent[] = [];
  for (const f of readdirSync(dir).sort((a, b) => parseInt(a) - parseInt(b))) {
    const m = /^\d+-(traces|logs|metrics)\.(json|pb)$/.exec(f);
    if (!m) continue;
    const body = readFileSync(join(dir, f));
    const pb = m[2] === 'pb';
    if (m[1] === 'traces') out.push(...assertNoRejects(spanEvents(pb ? decodeProtoTraces(body) : decodeJsonTraces(body))));
    else if (m[1] === 'logs') out.push(...assertNoRejects(logEvents(pb ? decodeProtoLogs(body) : decodeJsonLogs(body))));
    else out.push(...metricEvents((pb ? decodeProtoMetrics(body) : decodeJsonMetrics(body)).points));
  }
  return out;
}

/**
 * The records the log holds after the receiver stored each request in arrival order: some calls
 * are two records of one export (Gemini's tool log record and its span) that the store folds into one.
 */
function storedOf(agent: string): BeaconRecord[] {
  const log = EventLog.open(join(tempDir(`sources-${agent}-`), 'events.db'));
  try {
    log.append(toRows(eventsOf(agent)).rows);
    return log.list().map((r) => JSON.parse(r.record) as BeaconRecord);
  } finally {
    log.close();
  }
}

function assertNoRejects(x: { events: NormalizedEvent[]; rejected: unknown[] }): NormalizedEvent[] {
  assert.deepEqual(x.rejected, []);
  return x.events;
}

describe('agent sources on the real CLIs\' recorded exports', () => {
  for (const [agent, want] of Object.entries(AGENT_EXPECTATIONS)) {
    describe(agent, () => {
      it(`${want.harness}: one session, the mock's tokens per call, the shell call once, the prompt where exported`, () => {
        assertAgentRecords(storedOf(agent), want);
      });
    });
  }

  it("Copilot CLI: the prompt is what the user typed, not the <current_datetime> line Copilot sends before it", () => {
    const raw = readFileSync(join(repoRoot(), 'test', 'fixtures', 'agents', 'copilot', '1-traces.pb'));
    assert.ok(raw.includes('<current_datetime>'), 'the capture carries the wrapper');
    const prompts = eventsOf('copilot').map((e) => e.record).filter((r) => r.event.action === 'prompt.submitted');
    assert.ok(prompts.length > 0);
    for (const p of prompts) assert.doesNotMatch(String(p.prompt?.text), /current_datetime/);
  });

  it('Codex: a log record\'s `event_name` field (a source location) is never read as its name', () => {
    const records = decodeProtoLogs(readFileSync(join(repoRoot(), 'test', 'fixtures', 'agents', 'codex', '4-logs.pb')));
    assert.ok(records.some((r) => r.eventName.startsWith('event ')), 'the capture carries callsite event names');
    const forged = records.map((r) => ({ ...r, attributes: { ...r.attributes, 'event.name': r.eventName } }));
    assert.equal(logEvents(forged).events.length, 0);
  });
});

describe('agent sources: failures and decisions', () => {
  const logRecord = (service: string, attributes: Record<string, unknown>) => ({
    timeUnixNano: 1796135279278000000n, observedTimeUnixNano: 1796135279278000000n, severityNumber: 9, severityText: '', body: null,
    attributes, traceId: '', spanId: '', eventName: '', resource: { 'service.name': service }, scope: { name: 's', version: '' },
  }) as never;

  it('Claude Code: an api_error is a failed model call typed by its status, never by its message', () => {
    const [ev] = logEvents([logRecord('claude-code', { 'event.name': 'api_error', 'session.id': 's1', model: 'claude-sonnet-4-5', error: 'overloaded: token sk-ant-api03-xyz', status_code: '529', duration_ms: 12 })]).events;
    assert.equal(ev!.record.event.action, 'model.invoked');
    assert.equal(ev!.record.severity, 'high');
    assert.deepEqual(ev!.record.error, { type: 'http_529' });
    assert.doesNotMatch(JSON.stringify(ev!.record), /sk-ant/);
  });

  it('Claude Code: a rejected tool decision is approval.denied under the call\'s id; a failed tool result is tool.failed', () => {
    const { events } = logEvents([
      logRecord('claude-code', { 'event.name': 'tool_decision', 'session.id': 's1', decision: 'reject', source: 'user_reject', tool_name: 'Bash', tool_use_id: 'toolu_9' }),
      logRecord('claude-code', { 'event.name': 'tool_result', 'session.id': 's1', tool_name: 'Bash', tool_use_id: 'toolu_8', success: 'false', tool_input: '{"command":"false"}' }),
    ]);
    assert.deepEqual(events.map((e) => e.record.event.action), ['approval.denied', 'tool.failed']);
    assert.equal(events[0]!.record.gen_ai?.tool?.call?.id, 'toolu_9');
    assert.equal(events[1]!.record.command?.command, 'false');
  });

  it('Codex: a tool result whose output says a non-zero exit is tool.failed with the exit code', () => {
    const [ev] = logEvents([logRecord('codex_exec', { 'event.name': 'codex.tool_result', 'conversation.id': 'c1', tool_name: 'exec_command', call_id: 'call_2', arguments: '{"cmd":"exit 3"}', success: 'false', output: 'Process exited with code 3\n' })]).events;
    assert.equal(ev!.record.event.action, 'tool.failed');
    assert.equal(ev!.record.command?.exit_code, 3);
    assert.equal(ev!.record.gen_ai?.tool?.call?.id, 'call_2');
  });

  it('the log records of an agent Beacon has no source for are counted, not stored', () => {
    assert.equal(logEvents([logRecord('claude-code-fork', { 'event.name': 'api_request', input_tokens: 5 })]).events.length, 0);
  });
});

describe('agent tool tables read their own keys only', () => {
  // Fails without Object.hasOwn: `__proto__` threw "not a function" and `toString` gave no ToolUse,
  // a TypeError that failed the whole logs export (a 500 an exporter does not retry).
  it('a tool named after an Object.prototype member is an ordinary unknown tool', () => {
    for (const name of ['__proto__', 'toString', 'constructor', 'hasOwnProperty']) {
      assert.equal(claudeToolUse(name, {}).kind, 'other', name);
      assert.ok(classifyClaudeTool(name, {}), name);
      assert.ok(classifyGeminiStyleTool(name, {}), name);
    }
  });
});

describe('agent sources: what the export says, kept (issues 30 and 33)', () => {
  const at = (ms: number) => BigInt(ms) * 1_000_000n;
  const logRecord = (resource: Record<string, unknown>, attributes: Record<string, unknown>, ms = 1796135279278) => ({
    timeUnixNano: at(ms), observedTimeUnixNano: at(ms), severityNumber: 9, severityText: '', body: null,
    attributes, traceId: '', spanId: '', eventName: '', resource, scope: { name: 's', version: '' },
  }) as never;
  const stored = (events: NormalizedEvent[]) => toRows(events).rows.map((r) => JSON.parse(r.record));
  const gemini = { 'service.name': 'gemini-cli', 'service.version': 'v20.20.2', 'process.runtime.version': '20.20.2' };

  it('Gemini CLI: a shell command that exited non-zero is tool.failed with its exit code, though `success` is true', () => {
    const call = (metadata: unknown, extra: Record<string, unknown> = {}) => logRecord(gemini, {
      'event.name': 'gemini_cli.tool_call', 'session.id': 'g1', function_name: 'run_shell_command', function_args: '{"command":"ls /nope"}', success: true, duration_ms: 12,
      ...(metadata !== undefined ? { metadata: JSON.stringify(metadata) } : {}), ...extra,
    });
    const [exited, flagged, errored, ok] = logEvents([call({ exitCode: 2, isError: true }), call({ isError: true }), call(undefined, { status: 'error' }), call({ exitCode: 0 })]).events;
    assert.equal(exited!.record.event.action, 'tool.failed');
    assert.equal(exited!.record.severity, 'high');
    assert.equal(exited!.record.command?.exit_code, 2);
    assert.equal(flagged!.record.event.action, 'tool.failed');
    assert.equal(errored!.record.event.action, 'tool.failed');
    assert.equal(ok!.record.event.action, 'command.executed');
    assert.equal(ok!.record.command?.exit_code, 0);
  });

  it("Copilot CLI: a shell span without its arguments (content capture off) is tool.failed with the process's exit code", () => {
    const span = {
      traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), parentSpanId: '', name: 'execute_tool bash bash', kind: 1, startTimeUnixNano: at(0), endTimeUnixNano: at(93),
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.conversation.id': 'cp1', 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.id': 'call_2', 'process.executable.name': 'bash', 'process.exit.code': 2 },
      status: { code: 0, message: '' }, resource: { 'service.name': 'github-copilot' }, scope: { name: 'github.copilot', version: '1.0.102' },
    };
    const [ev] = spanEvents([span]).events.filter((e) => e.record.gen_ai?.tool);
    assert.equal(ev!.record.event.action, 'tool.failed');
    assert.equal(ev!.record.command?.exit_code, 2);
    assert.equal(ev!.record.command?.duration_ms, 93);
  });

  it("an agent's placeholder for a withheld prompt is stored as content not included, never as the prompt", () => {
    const events = logEvents([
      logRecord({ 'service.name': 'claude-code' }, { 'event.name': 'user_prompt', 'session.id': 's1', prompt: '<REDACTED>', prompt_length: '40' }),
      logRecord({ 'service.name': 'claude-code' }, { 'event.name': 'assistant_response', 'session.id': 's1', response: '<REDACTED>' }),
      logRecord({ 'service.name': 'claude-code' }, { 'event.name': 'user_prompt', 'session.id': 's1', prompt: 'fix <REDACTED> in the docs' }),
      logRecord({ 'service.name': 'codex_exec' }, { 'event.name': 'codex.user_prompt', 'conversation.id': 'c1', prompt: '[REDACTED]', prompt_length: '40' }),
    ]).events;
    const [claude, answer, real, codex] = stored(events);
    for (const r of [claude, answer, codex]) {
      assert.equal(r.prompt?.text, undefined, JSON.stringify(r));
      assert.equal(r.response?.text, undefined, JSON.stringify(r));
      assert.deepEqual(r.content, { retention: 'metadata', included: false });
    }
    assert.equal(real.prompt.text, 'fix <REDACTED> in the docs', 'a prompt that merely mentions the word is a prompt');
    assert.equal(real.content.included, true);
  });

  it('the provider where the export says it: Gemini and Qwen by auth type, Codex by its conversation\'s provider', () => {
    const [g] = logEvents([logRecord(gemini, { 'event.name': 'gemini_cli.api_response', 'session.id': 'g1', auth_type: 'gemini-api-key', model: 'gemini-2.5-flash', input_token_count: 10, output_token_count: 2 })]).events;
    const [v] = logEvents([logRecord(gemini, { 'event.name': 'gemini_cli.api_response', 'session.id': 'g1', auth_type: 'vertex-ai', model: 'gemini-2.5-flash', input_token_count: 10, output_token_count: 2 })]).events;
    const [q] = logEvents([logRecord({ 'service.name': 'qwen-code' }, { 'event.name': 'qwen-code.api_response', 'session.id': 'q1', auth_type: 'openai', model: 'qwen3', input_token_count: 10, output_token_count: 2 })]).events;
    assert.equal(g!.record.gen_ai?.provider?.name, 'gcp.gemini');
    assert.equal(v!.record.gen_ai?.provider?.name, 'gcp.vertex_ai');
    assert.equal(q!.record.gen_ai?.provider?.name, 'openai');
  });

  it("Codex: a model call exported in a later request than its conversation's start still has the provider", () => {
    const codex = { 'service.name': 'codex_exec' };
    assert.deepEqual(logEvents([logRecord(codex, { 'event.name': 'codex.conversation_starts', 'conversation.id': 'c-later', provider_name: 'Mock' })]).events, []);
    const [call] = logEvents([logRecord(codex, { 'event.name': 'codex.sse_event', 'event.kind': 'response.completed', 'conversation.id': 'c-later', model: 'gpt-5-mock', input_token_count: 500, output_token_count: 25 })]).events;
    assert.equal(call!.record.gen_ai?.provider?.name, 'mock');
    const [other] = logEvents([logRecord(codex, { 'event.name': 'codex.sse_event', 'event.kind': 'response.completed', 'conversation.id': 'c-other', model: 'gpt-5-mock', input_token_count: 5, output_token_count: 2 })]).events;
    assert.equal(other!.record.gen_ai?.provider, undefined, "another conversation's provider is never guessed");
  });

  it("the recorded exports: Codex's provider and request duration, Claude's tool duration, no Node version for Gemini", () => {
    const codexCalls = eventsOf('codex').filter((e) => e.record.event.action === 'model.invoked').map((e) => e.record.gen_ai);
    assert.deepEqual(codexCalls.map((c) => [c?.provider?.name, c?.duration_ms]), [['mock', 9], ['mock', 8]]);
    const claudeTool = eventsOf('claude').find((e) => e.record.event.action === 'command.executed')!;
    assert.equal(claudeTool.record.gen_ai?.duration_ms, 20);
    for (const e of eventsOf('gemini')) assert.equal(e.record.harness.version, undefined, 'service.version v20.20.2 is Node\'s');
    const [read] = logEvents([logRecord({ 'service.name': 'claude-code' }, { 'event.name': 'tool_result', 'session.id': 's1', tool_name: 'Read', tool_use_id: 'toolu_r', success: 'true', duration_ms: '7', tool_input: '{"file_path":"/a"}' })]).events;
    assert.equal(read!.record.gen_ai?.duration_ms, 7, "a tool that is not a command keeps its duration");
    const [later] = logEvents([logRecord({ ...gemini, 'service.version': '0.70.0' }, { 'event.name': 'gemini_cli.user_prompt', 'session.id': 'g1' })]).events;
    assert.equal(later!.record.harness.version, '0.70.0', 'a service.version that is not the runtime\'s is the CLI\'s');
  });

  it('two calls of one session that reuse a call id (call_1 in every turn) are two stored events', () => {
    const result = (ms: number, cmd: string) => logRecord({ 'service.name': 'codex_exec' }, { 'event.name': 'codex.tool_result', 'conversation.id': 'c1', tool_name: 'exec_command', call_id: 'call_1', arguments: JSON.stringify({ cmd }), success: 'true', output: 'Process exited with code 0' }, ms);
    const decision = (ms: number) => logRecord({ 'service.name': 'claude-code' }, { 'event.name': 'tool_decision', 'session.id': 's1', decision: 'accept', source: 'config', tool_name: 'Bash', tool_use_id: 'toolu_1' }, ms);
    const events = logEvents([result(1000, 'ls'), result(2000, 'pwd'), decision(1000), decision(2000)]).events;
    assert.equal(new Set(events.map((e) => e.record.event.id)).size, 4);
    assert.equal(logEvents([result(1000, 'ls')]).events[0]!.record.event.id, events[0]!.record.event.id, 'a retried export is the same event');
  });
});
