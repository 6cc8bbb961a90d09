import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { NormalizedEvent } from '../../src/model/record';
import { decodeJsonLogs, decodeProtoLogs } from '../../src/receiver/signals/logs';
import { decodeJsonMetrics, decodeProtoMetrics } from '../../src/receiver/signals/metrics';
import { decodeJsonTraces, decodeProtoTraces } from '../../src/receiver/signals/traces';
import { logEvents, metricEvents, spanEvents } from '../../src/sources/dispatch';
import { AGENT_EXPECTATIONS, assertAgentRecords } from '../helpers/agent-expectations';
import { repoRoot } from '../helpers/paths';
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
  return out.sort((a, b) => (a.timeUnixNano < b.timeUnixNano ? -1 : 1));
}

function assertNoRejects(x: { events: NormalizedEvent[]; rejected: unknown[] }): NormalizedEvent[] {
  assert.deepEqual(x.rejected, []);
  return x.events;
}

describe('agent sources on the real CLIs\' recorded exports', () => {
  for (const [agent, want] of Object.entries(AGENT_EXPECTATIONS)) {
    describe(agent, () => {
      it(`${want.harness}: one session, the mock's tokens per call, the shell call once, the prompt where exported`, () => {
        assertAgentRecords(eventsOf(agent).map((e) => e.record), want);
      });
    });
  }

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
