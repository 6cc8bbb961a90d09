/**
 * Issue 30 item 2: Gemini CLI's and Copilot CLI's hooks send no call id (Beacon pairs their pre and
 * post records), nor does Gemini's OTLP tool log record; their spans do. Each call is one row, under
 * the span's id, whichever path arrives first; two calls of the same tool and arguments stay two.
 * Real hook processes (the launcher's `beacon-hooks`), the sources' real readers, real SQLite on disk.
 */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toRows } from '../../src/ingest/rows';
import type { LogRecord } from '../../src/model/otlp-signals';
import type { SpanRecord } from '../../src/model/span';
import { logEvents, spanEvents } from '../../src/sources/dispatch';
import { EventLog } from '../../src/store/log/event-log';
import { listJoined } from '../../src/store/queries/joined-events';
import { listSessions } from '../../src/store/queries/sessions';
import type { ToolCallRow } from '../../src/store/queries/tool-calls';
import { runAgentHookSync } from '../helpers/hooks';
import { tempDir } from '../helpers/paths';

const MS = 1_000_000n;
const now = () => BigInt(Date.now()) * MS;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LS = 'ls /nonexistent-dir';

function store(path: string, events: ReturnType<typeof spanEvents>): void {
  const log = EventLog.open(path);
  log.append(toRows(events.events).rows);
  log.close();
}

function calls(path: string, session: string): ToolCallRow[] {
  const log = EventLog.open(path, { readonly: true });
  try {
    return listJoined(log, { sessionId: session }).filter((x): x is ToolCallRow => x.kind === 'tool_call');
  } finally {
    log.close();
  }
}

const brief = (c: ToolCallRow) => [c.callId, [...c.seenBy].sort().join('+'), c.failed];

/** Copilot's execute_tool span for `bash` as 1.0.102 exports it with content capture off: no arguments. */
function copilotSpan(session: string, callId: string, start: bigint, exit: number): SpanRecord {
  return {
    traceId: 'a'.repeat(32), spanId: callId.replace(/\D/g, '').padStart(16, '0'), parentSpanId: 'b'.repeat(16), name: 'execute_tool bash bash', kind: 1,
    startTimeUnixNano: start, endTimeUnixNano: start + 50n * MS, status: { code: 0, message: '' },
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.conversation.id': session, 'gen_ai.tool.name': 'bash', 'gen_ai.tool.call.id': callId, 'gen_ai.tool.type': 'function', 'process.exit.code': exit },
    resource: { 'service.name': 'github-copilot' }, scope: { name: 'github.copilot', version: '1.0.102' },
  };
}

/** One Copilot bash call through the real hook processes; its start and end as the log stamps them. */
function copilotHookCall(path: string, session: string): { start: bigint; end: bigint } {
  const p = { sessionId: session, timestamp: 1, cwd: '/home/alice/proj', toolName: 'bash', toolArgs: { command: LS, description: 'list' } };
  const start = now();
  assert.equal(runAgentHookSync('copilot-cli', path, 'preToolUse', p).status, 0);
  assert.equal(runAgentHookSync('copilot-cli', path, 'postToolUse', { ...p, toolResult: { resultType: 'success', textResultForLlm: `ls: cannot access\n<shellId: 0 completed with exit code 2>` } }).status, 0);
  return { start, end: now() };
}

describe('Copilot CLI: the hook call takes the id of its execute_tool span', () => {
  it('hooks first, then the spans: two calls of the same command stay two rows, in order, each under its own id', () => {
    const path = join(tempDir('call-join-'), 'events.db');
    const s = 'cp-join-1';
    const a = copilotHookCall(path, s);
    const b = copilotHookCall(path, s);
    store(path, spanEvents([copilotSpan(s, 'call_1', a.start, 2), copilotSpan(s, 'call_2', b.start, 2)]));
    assert.deepEqual(calls(path, s).map(brief), [['call_1', 'otlp+post-tool+pre-tool', true], ['call_2', 'otlp+post-tool+pre-tool', true]]);
    const row = calls(path, s)[0]!;
    assert.equal(row.observations.find((o) => o.observer === 'post-tool')!.record.command.command, LS, "the hook's command line");
    assert.equal(row.observations.find((o) => o.observer === 'otlp')!.record.gen_ai.duration_ms, 50, "the span's duration");
    const log = EventLog.open(path, { readonly: true });
    const [session] = listSessions(log.db, {}).sessions;
    log.close();
    assert.deepEqual([session?.detail?.toolCalls, session?.detail?.failedCalls], [{ 'command.executed': 2 }, 2], 'beacon sessions: two failed commands, not four');
  });

  it('a span first: the post-tool record takes its id; a span of a call no hook saw stays a row of its own', async () => {
    const path = join(tempDir('call-join-'), 'events.db');
    const s = 'cp-join-2';
    const t = now();
    store(path, spanEvents([copilotSpan(s, 'call_7', t + 200n * MS, 2), copilotSpan(s, 'call_8', t + 3000n * MS, 2)]));
    copilotHookCall(path, s);
    // the second span's call: its hooks come near its own time, and take its id, not the first's
    await sleep(Math.max(0, Number((t + 3000n * MS - now()) / MS)));
    copilotHookCall(path, s);
    store(path, spanEvents([copilotSpan(s, 'call_9', now() + 30_000n * MS, 0)]));
    assert.deepEqual(calls(path, s).map(brief), [['call_7', 'otlp+post-tool+pre-tool', true], ['call_8', 'otlp+post-tool+pre-tool', true], ['call_9', 'otlp', false]]);
  });

  it('a call the agent denied (a pre-tool record alone) takes no span; the next call of the same command is numbered on after a join', () => {
    const path = join(tempDir('call-join-'), 'events.db');
    const s = 'cp-join-3';
    const p = { sessionId: s, timestamp: 1, cwd: '/home/alice/proj', toolName: 'bash', toolArgs: { command: LS, description: 'list' } };
    const a = copilotHookCall(path, s);
    store(path, spanEvents([copilotSpan(s, 'call_1', a.start, 2)]));
    assert.equal(runAgentHookSync('copilot-cli', path, 'preToolUse', p).status, 0);
    const rows = calls(path, s);
    assert.equal(rows.length, 2, JSON.stringify(rows.map(brief)));
    assert.deepEqual(brief(rows[0]!), ['call_1', 'otlp+post-tool+pre-tool', true]);
    assert.match(rows[1]!.callId ?? '', /^beacon:[0-9a-f]+\.2$/, 'the second call is the pairing\'s second, not a replay of the first');
    assert.ok(rows[1]!.unfinished);
  });
});

function geminiLog(session: string, name: string, end: bigint, traceId: string, spanId: string, extra: Record<string, unknown> = {}): LogRecord {
  return {
    timeUnixNano: end, observedTimeUnixNano: end, severityNumber: 0, severityText: '', body: `Tool call: ${name}.`, traceId, spanId, eventName: '',
    attributes: { 'session.id': session, 'event.name': 'gemini_cli.tool_call', function_name: name, duration_ms: 80, success: true, decision: 'accept', prompt_id: session, tool_type: 'native', ...extra },
    resource: { 'service.name': 'gemini-cli' }, scope: { name: 'gemini-cli', version: '' },
  } as LogRecord;
}

function geminiSpan(session: string, name: string, callId: string, start: bigint, traceId: string, parent: string, spanId: string): SpanRecord {
  return {
    traceId, spanId, parentSpanId: parent, name: 'tool_call', kind: 1, startTimeUnixNano: start, endTimeUnixNano: start + 78n * MS, status: { code: 1, message: '' },
    attributes: { 'gen_ai.tool.name': name, 'gen_ai.tool.call_id': callId, 'gen_ai.conversation.id': session, 'gen_ai.operation.name': 'tool_call' },
    resource: { 'service.name': 'gemini-cli' }, scope: { name: 'gemini-cli', version: 'v1' },
  };
}

describe("Gemini CLI: its tool log record and its tool_call span are one OTLP record, with the span's id", () => {
  const hookCall = (path: string, s: string) => {
    const p = { session_id: s, transcript_path: '/h/t.json', cwd: '/home/alice/proj', hook_event_name: 'BeforeTool', timestamp: '2026-12-02T00:00:00Z', tool_name: 'run_shell_command', tool_input: { command: LS } };
    const start = now();
    assert.equal(runAgentHookSync('gemini-cli', path, 'BeforeTool', p).status, 0);
    assert.equal(runAgentHookSync('gemini-cli', path, 'AfterTool', { ...p, hook_event_name: 'AfterTool', tool_response: { llmContent: `Output: ls: cannot access\nExit Code: 2` } }).status, 0);
    return { start, end: now() };
  };

  for (const order of ['log record first', 'span first'] as const) {
    it(`${order}: one row per call, the hook's line, the log's duration, the span's id`, () => {
      const path = join(tempDir('call-join-'), 'events.db');
      const s = `g-join-${order.split(' ')[0]}`;
      const c = hookCall(path, s);
      const log = logEvents([geminiLog(s, 'run_shell_command', c.end, 'c'.repeat(32), 'd'.repeat(16))]);
      const span = spanEvents([geminiSpan(s, 'run_shell_command', 'run_shell_command__call_2', c.start, 'c'.repeat(32), 'd'.repeat(16), 'e'.repeat(16))]);
      for (const signal of order === 'span first' ? [span, log] : [log, span]) store(path, signal);
      // a retried traces export after the fold: nothing more
      store(path, span);
      const rows = calls(path, s);
      assert.deepEqual(rows.map(brief), [['run_shell_command__call_2', 'otlp+post-tool+pre-tool', true]]);
      const otlp = rows[0]!.observations.filter((o) => o.observer === 'otlp');
      assert.equal(otlp.length, 1, 'the log record and the span: one record');
      assert.equal(otlp[0]!.record.gen_ai.duration_ms, 80, "the log record's, kept");
      assert.equal(rows[0]!.observations.find((o) => o.observer === 'post-tool')!.record.command.exit_code, 2);
    });
  }
});

/** A policy provider denying every call whose event mentions SIDE-EFFECT (the lab's deny run). */
function denyProvider(): string {
  const file = join(tempDir('call-join-deny-'), 'deny.sh');
  writeFileSync(file, `#!/bin/sh\ncase "$(cat)" in *SIDE-EFFECT*) echo '{"decision":"deny","reason":"no side effects here"}';; *) echo '{"decision":"allow"}';; esac\n`);
  chmodSync(file, 0o755);
  return file;
}

const SIDE = 'touch /tmp/SIDE-EFFECT && ls /nonexistent-dir';
const deniedBrief = (c: ToolCallRow) => [[...c.seenBy].sort().join('+'), c.action, c.denied, c.failed, c.unfinished];

describe('a call the policy denied, whose hooks send no call id: one row with its OTLP record (issue 30)', () => {
  /** Copilot 1.0.102's execute_tool span of a call its preToolUse hook denied (observed): an error status, no exit code. */
  const deniedSpan = (session: string, callId: string, start: bigint): SpanRecord => {
    const span = copilotSpan(session, callId, start, 0);
    delete span.attributes['process.exit.code'];
    return { ...span, status: { code: 2, message: 'Tool failed' }, endTimeUnixNano: start + 155n * MS };
  };
  const copilotDenied = (path: string, s: string, provider: string): { status: number | null } =>
    runAgentHookSync('copilot-cli', path, 'preToolUse', { sessionId: s, timestamp: 1, cwd: '/home/alice/proj', toolName: 'bash', toolArgs: { command: SIDE, description: 'touch' } }, { BEACON_POLICY_PROVIDER: provider });

  for (const order of ['hooks first', 'span first'] as const) {
    it(`Copilot CLI, ${order}: the denial takes the span's id; approval.denied, denied, not failed`, () => {
      const path = join(tempDir('call-join-'), 'events.db');
      const s = `cp-deny-${order.split(' ')[0]}`;
      const provider = denyProvider();
      // the span starts before the hook (observed: 27.197 s, the hook 27.280 s)
      const span = spanEvents([deniedSpan(s, 'call_beacon_0002', now() - 80n * MS)]);
      if (order === 'span first') store(path, span);
      assert.equal(copilotDenied(path, s, provider).status, 0);
      if (order === 'hooks first') store(path, span);
      store(path, span); // a retried export
      const rows = calls(path, s);
      assert.deepEqual(rows.map((c) => [c.callId, ...deniedBrief(c)]), [['call_beacon_0002', 'otlp+policy+pre-tool', 'approval.denied', true, false, false]]);
      assert.equal(rows[0]!.observations.find((o) => o.observer === 'policy')!.record.policy.reason, 'no side effects here');
      assert.equal(rows[0]!.observations.find((o) => o.observer === 'otlp')!.record.gen_ai.duration_ms, 155, "the span's duration");
    });
  }

  it('Copilot CLI: two denied calls of the same command and their two spans stay two rows, each with its own span', () => {
    const path = join(tempDir('call-join-'), 'events.db');
    const s = 'cp-deny-two';
    const provider = denyProvider();
    const a = now();
    assert.equal(copilotDenied(path, s, provider).status, 0);
    const b = now();
    assert.equal(copilotDenied(path, s, provider).status, 0);
    store(path, spanEvents([deniedSpan(s, 'call_1', a - 10n * MS), deniedSpan(s, 'call_2', b - 10n * MS)]));
    assert.deepEqual(calls(path, s).map((c) => [c.callId, ...deniedBrief(c)]), [['call_1', 'otlp+policy+pre-tool', 'approval.denied', true, false, false], ['call_2', 'otlp+policy+pre-tool', 'approval.denied', true, false, false]]);
  });

  /** Gemini 0.61's tool log record of a call its BeforeTool hook denied (observed): failed, no span, so no call id at all. */
  const deniedLog = (s: string, at: bigint) => logEvents([geminiLog(s, 'run_shell_command', at, 'f'.repeat(32), '9'.repeat(16), { success: false, duration_ms: 151, decision: undefined })]);
  const geminiDenied = (path: string, s: string, provider: string) =>
    runAgentHookSync('gemini-cli', path, 'BeforeTool', { session_id: s, transcript_path: '/h/t.json', cwd: '/home/alice/proj', hook_event_name: 'BeforeTool', timestamp: '2026-12-02T00:00:00Z', tool_name: 'run_shell_command', tool_input: { command: SIDE } }, { BEACON_POLICY_PROVIDER: provider });

  for (const order of ['hooks first', 'log record first'] as const) {
    it(`Gemini CLI, ${order}: the log record takes the pairing's id (the only one the call has); one row, approval.denied`, () => {
      const path = join(tempDir('call-join-'), 'events.db');
      const s = `g-deny-${order.split(' ')[0]}`;
      const provider = denyProvider();
      const log = deniedLog(s, now() + 60n * MS);
      if (order === 'log record first') store(path, log);
      assert.equal(geminiDenied(path, s, provider).status, 0);
      if (order === 'hooks first') store(path, log);
      store(path, log); // a retried export
      const rows = calls(path, s);
      assert.equal(rows.length, 1, JSON.stringify(rows.map((c) => [c.callId, ...deniedBrief(c)])));
      assert.match(rows[0]!.callId ?? '', /^beacon:[0-9a-f]+\.1$/);
      assert.deepEqual(deniedBrief(rows[0]!), ['otlp+policy+pre-tool', 'approval.denied', true, false, false]);
      assert.equal(rows[0]!.observations.find((o) => o.observer === 'otlp')!.record.gen_ai.duration_ms, 151);
    });
  }

  it("Gemini CLI: a span that comes after all (a release that sends one) gives its id to the log record and the hook's records", () => {
    const path = join(tempDir('call-join-'), 'events.db');
    const s = 'g-deny-span';
    const at = now();
    assert.equal(geminiDenied(path, s, denyProvider()).status, 0);
    store(path, deniedLog(s, at + 60n * MS));
    store(path, spanEvents([geminiSpan(s, 'run_shell_command', 'run_shell_command__call_9', at, 'f'.repeat(32), '9'.repeat(16), '8'.repeat(16))]));
    assert.deepEqual(calls(path, s).map((c) => [c.callId, ...deniedBrief(c)]), [['run_shell_command__call_9', 'otlp+policy+pre-tool', 'approval.denied', true, false, false]]);
  });

  it('Gemini CLI: a call that was not denied never lends its pairing id to a log record without one (its span brings the id)', () => {
    const path = join(tempDir('call-join-'), 'events.db');
    const s = 'g-nodeny';
    const p = { session_id: s, transcript_path: '/h/t.json', cwd: '/home/alice/proj', hook_event_name: 'BeforeTool', timestamp: '2026-12-02T00:00:00Z', tool_name: 'run_shell_command', tool_input: { command: LS } };
    const start = now();
    assert.equal(runAgentHookSync('gemini-cli', path, 'BeforeTool', p).status, 0);
    assert.equal(runAgentHookSync('gemini-cli', path, 'AfterTool', { ...p, hook_event_name: 'AfterTool', tool_response: { llmContent: 'Exit Code: 2' } }).status, 0);
    store(path, logEvents([geminiLog(s, 'run_shell_command', now(), 'c'.repeat(32), 'd'.repeat(16))]));
    store(path, spanEvents([geminiSpan(s, 'run_shell_command', 'run_shell_command__call_2', start, 'c'.repeat(32), 'd'.repeat(16), 'e'.repeat(16))]));
    assert.deepEqual(calls(path, s).map(brief), [['run_shell_command__call_2', 'otlp+post-tool+pre-tool', true]]);
  });
});
