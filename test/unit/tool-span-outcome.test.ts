import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spanEvents } from '../../src/sources/dispatch';
import { hookEvents } from '../../src/sources/goose/hook-events';
import { decodeJsonTraces } from '../../src/receiver/signals/traces';
import { gooseStateMachineTurn, hex } from '../helpers/goose-spans';
import { traceRequest, type SpanSpec } from '../helpers/otlp-json';

/**
 * goose ≥ 1.50's legacy tool span (agent.rs@0009e7e2 `dispatch_tool_call_on`): with content capture
 * off (the default) it carries only the tool name and call id — `input`, `output` and the gen_ai
 * arguments/result are gated — and `error.type` only for a policy hook's refusal.
 */
function dispatchSpan(attributes: SpanSpec['attributes']): SpanSpec {
  return {
    name: 'dispatch_tool_call', traceId: hex(16), spanId: hex(8), parentSpanId: hex(8), start: 1787301000000000000n, end: 1787301002000000000n,
    attributes: { 'session.id': '20261010_2', 'gen_ai.conversation.id': '20261010_2', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'shell', 'gen_ai.tool.call.id': 'toolu_50', ...attributes },
  };
}

const one = (span: SpanSpec) => spanEvents(decodeJsonTraces(Buffer.from(JSON.stringify(traceRequest([span]))))).events[0]!.record;

describe('goose ≥ 1.50 tool spans', () => {
  it('capture off: the call is recorded with its outcome unknown, never as a success', () => {
    const r = one(dispatchSpan({}));
    assert.equal(r.event.action, 'command.executed');
    assert.equal(r.command?.command, undefined, 'no command over OTLP with capture off (the hooks carry it)');
    assert.equal(r.gen_ai?.tool?.call?.id, 'toolu_50');
    assert.equal(r.raw?.outcome, 'unknown');
    assert.match(r.message!, /outcome not exported/);
    assert.equal(r.severity, 'info');
  });

  it('capture on with a result: the outcome is known', () => {
    const r = one(dispatchSpan({ 'gen_ai.tool.call.result': JSON.stringify({ content: [], isError: false }) }));
    assert.equal(r.raw?.outcome, undefined);
    assert.equal(r.message, 'Shell command executed');
  });

  it('error.type hook_denied is a policy denial (approval.denied), not a high-severity tool.failed', () => {
    const r = one(dispatchSpan({ 'error.type': 'hook_denied' }));
    assert.equal(r.event.action, 'approval.denied');
    assert.equal(r.event.category, 'approval');
    assert.deepEqual(r.policy, { decision: 'deny', enforcement: 'enforce', reason: 'a PreToolUse policy hook denied the tool call' });
    assert.equal(r.error?.type, 'hook_denied');
    assert.equal(r.gen_ai?.tool?.call?.id, 'toolu_50');
    assert.equal(r.session?.id, '20261010_2');
  });

  it('error.type hook_failed is the refusal of a failed policy hook (approval.denied, error hook_failed), not tool.failed', () => {
    const r = one(dispatchSpan({ 'error.type': 'hook_failed' }));
    assert.equal(r.event.action, 'approval.denied');
    assert.equal(r.error?.type, 'hook_failed');
    assert.match(r.message!, /could not complete/);
  });

  it("the span's denial is keyed by the call; the hook's by the launcher's invocation key, so a reused call id denied twice is two denials (the join makes the span and the hook one call)", () => {
    const span = one(dispatchSpan({ 'error.type': 'hook_denied' }));
    const payload = { event: 'PreToolUseResult', session_id: '20261010_2', tool_call_id: 'toolu_50', tool_name: 'shell', decision: 'deny', blocked_by: 'corp-policy', cause: 'policy_denial' };
    const [first] = hookEvents('pre-tool-result', payload, { now: 1n, env: {}, key: '100-1' });
    const [again] = hookEvents('pre-tool-result', payload, { now: 2n, env: {}, key: '100-2' });
    assert.equal(first!.record.event.action, 'approval.denied');
    assert.notEqual(first!.record.event.id, again!.record.event.id);
    // without a launcher key (a hook run by hand) the hook falls back to the call's id, the span's
    const [unkeyed] = hookEvents('pre-tool-result', payload, { now: 1n, env: {} });
    assert.equal(span.event.id, unkeyed!.record.event.id);
  });

  it("the opt-in loop's execute_tool span reports failures in error.type: no error there is a success", () => {
    const turn = gooseStateMachineTurn();
    const r = spanEvents(decodeJsonTraces(Buffer.from(JSON.stringify(traceRequest(turn.spans))))).events.find((e) => e.record.event.category === 'command')!.record;
    assert.equal(r.raw?.outcome, undefined);
  });

  it("a failed shell's exit code comes from goose's gated `output` (gen_ai.tool.call.result is written only on success)", () => {
    const output = { status: 'success', value: { content: [{ type: 'text', text: 'error: test failed' }], structuredContent: { stdout: '', stderr: 'error: test failed', exit_code: 101 }, isError: true } };
    const r = one(dispatchSpan({ 'gen_ai.tool.call.arguments': JSON.stringify({ command: 'cargo test' }), output: JSON.stringify(output) }));
    assert.equal(r.event.action, 'tool.failed');
    assert.equal(r.command?.exit_code, 101);
    const errored = one(dispatchSpan({ 'gen_ai.tool.call.arguments': JSON.stringify({ command: 'make' }), output: JSON.stringify({ status: 'error', value: { structuredContent: { exit_code: 2 } } }) }));
    assert.equal(errored.event.action, 'tool.failed');
    assert.equal(errored.command?.exit_code, 2);
  });
});

