import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinToolCalls, type StoredActivity, type ToolCallRow } from '../../src/store/queries/tool-calls';

/**
 * How observations become calls (issue 30 item 1, issue 33): a call is its session, harness and
 * call id over one pairing of its paths in time order — a path that already reported the call
 * begins the next call under the same id.
 */
describe('tool call join: key and pairing', () => {
  let seq = 0;
  const ev = (method: string, action: string, callId: string, o: { session?: string; harness?: string; record?: object } = {}): StoredActivity => {
    seq += 1;
    return { seq: BigInt(seq), tsNs: BigInt(seq), method, action, sessionId: o.session ?? 's', harness: o.harness ?? 'goose', toolCallId: callId, record: JSON.stringify(o.record ?? {}) };
  };
  /** each call as its paths (sorted) and outcome */
  const calls = (events: StoredActivity[]) => joinToolCalls(events).filter((i): i is ToolCallRow => i.kind === 'tool_call').map((c) => [...c.seenBy].sort().join('+') + (c.failed ? ' failed' : '') + (c.denied ? ' denied' : '') + (c.unfinished && !c.denied ? ' unfinished' : ''));

  it('the same id in two sessions, or two harnesses of one session, is two calls', () => {
    assert.deepEqual(calls([ev('otlp', 'command.executed', 'call_1', { session: 'a' }), ev('otlp', 'tool.failed', 'call_1', { session: 'b' })]), ['otlp', 'otlp failed']);
    assert.deepEqual(calls([ev('otlp', 'command.executed', 'call_1', { harness: 'codex' }), ev('hook', 'command.executed', 'call_1', { harness: 'goose' })]), ['otlp', 'post-tool']);
  });

  it('a reused id: each path reports a call once, so its second report begins the next call', () => {
    // the span stamped at the call's start, before the pre-tool hook
    assert.deepEqual(calls([
      ev('otlp', 'command.executed', 'call_1'), ev('hook', 'tool.invoked', 'call_1'), ev('hook', 'command.executed', 'call_1'),
      ev('otlp', 'command.executed', 'call_1'), ev('hook', 'tool.invoked', 'call_1'), ev('hook', 'tool.failed', 'call_1'),
    ]), ['otlp+post-tool+pre-tool', 'otlp+post-tool+pre-tool failed']);
    // an unclassified tool: two hook tool.invoked per call, a pre-tool and a post-tool
    assert.deepEqual(calls([ev('hook', 'tool.invoked', 'x'), ev('hook', 'tool.invoked', 'x'), ev('hook', 'tool.invoked', 'x'), ev('hook', 'tool.invoked', 'x')]), ['post-tool+pre-tool', 'post-tool+pre-tool']);
    // a denied call retried under its id: the retry is a call of its own, not the denied one's result
    assert.deepEqual(calls([ev('hook', 'tool.invoked', 'r'), ev('hook', 'approval.denied', 'r'), ev('hook', 'tool.invoked', 'r')]), ['policy+pre-tool denied', 'pre-tool unfinished']);
    // one denial recorded by two recorders (the hook's and the stream's) is one call
    assert.deepEqual(calls([ev('hook', 'tool.invoked', 'd'), ev('hook', 'approval.denied', 'd'), ev('stream', 'approval.denied', 'd')]), ['policy+pre-tool denied']);
    // the hook's denial and goose's span of it (two records: they share no per-call id), then the id
    // reused and denied again (that span's record, under the call's id, is the first one's and stored once)
    assert.deepEqual(calls([
      ev('hook', 'tool.invoked', 'e'), ev('hook', 'approval.denied', 'e'), ev('otlp', 'approval.denied', 'e'),
      ev('hook', 'tool.invoked', 'e'), ev('hook', 'approval.denied', 'e'),
    ]), ['policy+pre-tool denied', 'policy+pre-tool denied']);
  });

  it("an unclassified tool's lost post-tool hook: the hook's own phase keeps the next call's pre-tool out of it", () => {
    const hook = (phase: string) => ev('hook', 'tool.invoked', 'u', { record: { raw: { hook_event: phase } } });
    // call 1: pre-tool, span, its post-tool lost; call 2: pre-tool, span, post-tool
    assert.deepEqual(calls([hook('PreToolUse'), ev('otlp', 'tool.invoked', 'u'), hook('PreToolUse'), ev('otlp', 'tool.invoked', 'u'), hook('PostToolUse')]), ['otlp+pre-tool', 'otlp+post-tool+pre-tool']);
    // and whole calls still pair as before
    assert.deepEqual(calls([hook('PreToolUse'), hook('PostToolUse'), hook('PreToolUse'), hook('PostToolUse')]), ['post-tool+pre-tool', 'post-tool+pre-tool']);
  });

  it("the phase, not the agent's name for its hook: any agent's post-tool record ends its call", () => {
    // (the records above are goose's as stored before the phase was: the hook's Claude name only)
    const hook = (event: string, phase: string) => ev('hook', 'tool.invoked', 'v', { harness: 'gemini-cli', record: { raw: { hook_event: event, hook_phase: phase } } });
    assert.deepEqual(calls([hook('BeforeTool', 'pre-tool'), hook('BeforeTool', 'pre-tool'), hook('AfterTool', 'post-tool')]), ['pre-tool unfinished', 'post-tool+pre-tool']);
    assert.deepEqual(calls([hook('BeforeTool', 'pre-tool'), hook('AfterTool', 'post-tool'), hook('BeforeTool', 'pre-tool'), hook('AfterTool', 'post-tool')]), ['post-tool+pre-tool', 'post-tool+pre-tool']);
  });
});
