/**
 * Issue 30: one taxonomy for a denied call, whichever agent. The policy's denial is the call's end:
 * it never ran, so its row is `approval.denied`, RESULT denied, never failed — whatever the agent's
 * own record of it says (Qwen Code's and opencode's `command.executed` or `tool.failed`, Pi's
 * imported `command.executed`, Gemini's and Copilot's `tool.failed`). Each agent's observations of
 * its denied call as the lab's deny runs stored them (paths and actions: the quotes of issue 30),
 * through a real SQLite log, `beacon events`' joined row and `beacon sessions`' counts.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { joinedRow } from '../../src/cli/format';
import { EventLog } from '../../src/store/log/event-log';
import type { EventRow } from '../../src/store/log/row';
import { listJoined } from '../../src/store/queries/joined-events';
import { listSessions } from '../../src/store/queries/sessions';
import type { ToolCallRow } from '../../src/store/queries/tool-calls';
import { tempDir } from '../helpers/paths';

const MS = 1_000_000n;
const T0 = 1_796_000_000_000n * MS;
const CMD = 'touch /home/alice/proj/SIDE-EFFECT && ls /nonexistent-dir';

type Observation = { method: 'hook' | 'otlp' | 'poll'; action: string; phase?: 'pre-tool'; exit?: number };

const PRE: Observation = { method: 'hook', action: 'tool.invoked', phase: 'pre-tool' };
const DENIAL: Observation = { method: 'hook', action: 'approval.denied', phase: 'pre-tool' };

/** Each agent's denied call as stored: the pre-tool hook, Beacon's denial, and what its other path said of the call. */
const DENIED_CALLS: Record<string, { tool: string; observations: Observation[] }> = {
  'claude-code': { tool: 'Bash', observations: [PRE, DENIAL] },
  codex: { tool: 'exec_command', observations: [PRE, DENIAL] },
  'gemini-cli': { tool: 'run_shell_command', observations: [PRE, DENIAL, { method: 'otlp', action: 'tool.failed' }] },
  'copilot-cli': { tool: 'bash', observations: [{ method: 'otlp', action: 'tool.failed' }, PRE, DENIAL] },
  'qwen-code': { tool: 'run_shell_command', observations: [PRE, DENIAL, { method: 'otlp', action: 'command.executed' }] },
  'qwen-code (its OTLP saying failed)': { tool: 'run_shell_command', observations: [PRE, DENIAL, { method: 'otlp', action: 'tool.failed' }] },
  opencode: { tool: 'bash', observations: [PRE, DENIAL, { method: 'otlp', action: 'command.executed', exit: 0 }] },
  pi: { tool: 'bash', observations: [PRE, DENIAL, { method: 'poll', action: 'command.executed' }] },
  cline: { tool: 'run_commands', observations: [PRE, DENIAL] },
};

function rows(agent: string, session: string): EventRow[] {
  const harness = agent.split(' ')[0]!;
  const { tool, observations } = DENIED_CALLS[agent]!;
  return observations.map((o, i) => {
    const id = `${session}-${i}`;
    const record = {
      event: { id, action: o.action }, harness: { name: harness, collection_method: o.method }, session: { id: session },
      tool: { name: tool }, command: { command: CMD, ...(o.exit !== undefined ? { exit_code: o.exit } : {}) },
      gen_ai: { tool: { name: tool, call: { id: 'call_beacon_0002' } } },
      ...(o.phase ? { raw: { hook_phase: o.phase } } : {}),
      ...(o.action === 'approval.denied' ? { approval: { decision: 'deny', reason: 'no side effects here' } } : {}),
    };
    return {
      id, tsNs: T0 + BigInt(i) * 50n * MS, harness, method: o.method, action: o.action, sessionId: session, traceId: null, spanId: null, parentSpanId: null,
      toolCallId: 'call_beacon_0002', model: null, provider: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheCreationTokens: null,
      reasoningTokens: null, costUsd: null, record: JSON.stringify(record), dropIfChatChildStored: false,
    };
  });
}

describe('a denied call is approval.denied for every agent', () => {
  for (const agent of Object.keys(DENIED_CALLS)) {
    it(agent, () => {
      const log = EventLog.open(join(tempDir('denied-call-'), 'events.db'));
      try {
        const session = `s-${agent.replace(/\W+/g, '-')}`;
        log.append(rows(agent, session));
        const calls = listJoined(log, { sessionId: session }).filter((x): x is ToolCallRow => x.kind === 'tool_call');
        assert.equal(calls.length, 1);
        const [call] = calls;
        assert.deepEqual([call!.action, call!.denied, call!.failed], ['approval.denied', true, false]);
        const printed = joinedRow(call!, true);
        assert.deepEqual([printed[3], printed[4]], ['approval.denied', 'denied'], 'beacon events: ACTION and RESULT');
        const detail = listSessions(log.db, {}).sessions.find((s) => s.id === session)?.detail;
        assert.deepEqual([detail?.toolCalls, detail?.failedCalls, detail?.failedCommands, detail?.deniedCalls], [{ denied: 1 }, 0, 0, 1], 'beacon sessions: one denied call, not a failed command');
      } finally {
        log.close();
      }
    });
  }
});
