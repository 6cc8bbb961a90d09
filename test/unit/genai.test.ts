import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { spanEvents } from '../../src/sources/dispatch';
import { primaryContentField } from '../../src/ingest/content-field';
import { decodeJsonTraces } from '../../src/receiver/signals/traces';
import { gooseDefaultLoopTurn, gooseStateMachineTurn, hex } from '../helpers/goose-spans';
import { traceRequest, type SpanSpec } from '../helpers/otlp-json';

const decode = (req: object) => decodeJsonTraces(Buffer.from(JSON.stringify(req)));

function chatSpan(attributes: SpanSpec['attributes'], extra: Partial<SpanSpec> = {}): SpanSpec {
  return { name: 'stream_response_from_provider', traceId: hex(16), spanId: hex(8), start: 1n, end: 2n, attributes: { 'gen_ai.operation.name': 'chat', ...attributes }, ...extra };
}

describe('GenAI extraction: goose default loop', () => {
  const turn = gooseDefaultLoopTurn();
  const { events, rejected } = spanEvents(decode(traceRequest(turn.spans)));

  it('selects spans by gen_ai.operation.name: 2 model calls and 2 tool calls; invoke_agent, execute_hook and todo are not events', () => {
    assert.deepEqual(rejected, []);
    assert.deepEqual(events.map((e) => e.record.event.action).sort(), ['command.executed', 'model.invoked', 'model.invoked', 'tool.failed']);
    assert.deepEqual(events.filter((e) => e.record.event.action === 'model.invoked').map((e) => e.record.trace?.span_id), turn.chatSpanIds);
  });

  it('tags harness goose, collection method otlp, version, session and user', () => {
    for (const e of events) {
      assert.deepEqual(e.record.harness, { name: 'goose', version: '1.47.0', collection_method: 'otlp' });
      assert.equal(e.record.session?.id, turn.sessionId);
      assert.equal(e.record.user?.name, 'alice');
      assert.equal(e.record.schema_version, '1.0');
    }
  });

  it('stores disjoint token buckets: goose input includes both cache buckets', () => {
    const chat = events.find((e) => e.record.trace?.span_id === turn.chatSpanIds[0])!.record;
    assert.deepEqual(chat.gen_ai?.usage, { input_tokens: 12840 - 11200 - 1500, output_tokens: 212, cache_read: { input_tokens: 11200 }, cache_creation: { input_tokens: 1500 } });
    // what goose said stays in raw
    assert.equal((chat.raw as { attributes: Record<string, unknown> }).attributes['gen_ai.usage.input_tokens'], 12840);
  });

  it('extracts model, provider, response id, finish reasons (JSON string → array) and reasoning', () => {
    const chat = events.find((e) => e.record.trace?.span_id === turn.chatSpanIds[0])!;
    const r = chat.record;
    assert.equal(r.model, 'claude-sonnet-4-5-20250929');
    assert.equal(r.gen_ai?.provider?.name, 'anthropic');
    assert.equal(r.gen_ai?.request?.model, 'claude-sonnet-4-5');
    assert.deepEqual(r.gen_ai?.response, { id: 'msg_01XFDUDYJgAACzvnptvVoYEL', model: 'claude-sonnet-4-5-20250929', finish_reasons: ['tool_use'] });
    assert.deepEqual(r.reasoning, { text: 'Run the tests first.' });
    assert.equal(primaryContentField(r), 'reasoning.text');
    // input messages (the whole conversation, resent on every call) are not stored
    assert.equal((r.raw as { attributes: Record<string, unknown> }).attributes['gen_ai.input.messages'], undefined);
  });

  it('classifies tool spans with the shared taxonomy; error.type makes tool.failed with no diff', () => {
    const shell = events.find((e) => e.record.gen_ai?.tool?.call?.id === 'toolu_01AbC')!.record;
    assert.equal(shell.event.action, 'command.executed');
    assert.equal(shell.command?.command, 'cargo test');
    assert.equal(shell.command?.exit_code, 0);
    assert.equal(shell.command?.duration_ms, 5500);
    const edit = events.find((e) => e.record.gen_ai?.tool?.call?.id === 'toolu_02XyZ')!.record;
    assert.equal(edit.event.action, 'tool.failed');
    assert.equal(edit.severity, 'high');
    assert.equal(edit.file?.path, 'src/lib.rs');
    assert.equal(edit.file?.diff, undefined);
  });
});

describe('GenAI extraction: goose opt-in loop (GOOSE_STATE_MACHINE=1)', () => {
  it('counts a chat span wrapping a chat child once (the child, with the cache buckets)', () => {
    const turn = gooseStateMachineTurn();
    const { events } = spanEvents(decode(traceRequest(turn.spans)));
    const chats = events.filter((e) => e.record.event.action === 'model.invoked');
    assert.equal(chats.length, 1);
    assert.equal(chats[0]!.record.trace?.span_id, turn.chatSpanIds[0]);
    assert.deepEqual(chats[0]!.record.gen_ai?.usage, { input_tokens: 904, output_tokens: 120, cache_read: { input_tokens: 4096 }, cache_creation: { input_tokens: 0 } });
    const tool = events.find((e) => e.record.event.category === 'command')!.record;
    assert.equal(tool.command?.command, 'ls -la');
  });

  it("the turn's agent name (gen_ai.agent.name on invoke_agent: a custom agent, a recipe) on its model and tool calls", () => {
    const turn = gooseStateMachineTurn();
    const named = turn.spans.map((s) => (s.name === 'reply' ? { ...s, attributes: { ...s.attributes, 'gen_ai.agent.name': 'release-bot' } } : s));
    const { events } = spanEvents(decode(traceRequest(named)));
    assert.ok(events.length >= 2);
    for (const e of events) assert.deepEqual(e.record.gen_ai?.agent, { name: 'release-bot' });
  });

  it("keeps what only the wrapper carries: its purpose on the child's record, its provider failure as a failed call", () => {
    const turn = gooseStateMachineTurn();
    const [ok] = spanEvents(decode(traceRequest(turn.spans))).events.filter((e) => e.record.event.action === 'model.invoked');
    assert.equal((ok!.record.raw?.attributes as Record<string, unknown>)['goose.chat.purpose'], 'reply');
    assert.equal(ok!.record.error, undefined);
    // goose's ops_llm sets error.type (the provider's failure kind) on the wrapper only
    const failing = turn.spans.map((s) => (s.name === 'chat' ? { ...s, attributes: { ...s.attributes, 'error.type': 'rate_limit' } } : s));
    const [failed] = spanEvents(decode(traceRequest(failing))).events.filter((e) => e.record.event.action === 'model.invoked');
    assert.deepEqual(failed!.record.error, { type: 'rate_limit' });
    assert.equal(failed!.record.severity, 'high');
    assert.equal(failed!.record.message, 'Model call failed');
    assert.deepEqual(failed!.record.gen_ai?.usage, ok!.record.gen_ai?.usage, 'still counted once, on the child');
  });
});

describe('GenAI extraction: attribute forms', () => {
  it('accepts finish reasons as a string array, gen_ai.system, cache_write, reasoning as structured parts', () => {
    const span = chatSpan({ 'gen_ai.system': 'openai', 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.cache_write.input_tokens': 40 });
    const req = traceRequest([span]) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    const attrs = req.resourceSpans[0].scopeSpans[0].spans[0].attributes;
    attrs.push({ key: 'gen_ai.response.finish_reasons', value: { arrayValue: { values: [{ stringValue: 'stop' }, { stringValue: 'length' }] } } });
    attrs.push({
      key: 'gen_ai.output.messages',
      value: { arrayValue: { values: [{ kvlistValue: { values: [{ key: 'role', value: { stringValue: 'assistant' } }, { key: 'parts', value: { arrayValue: { values: [{ kvlistValue: { values: [{ key: 'type', value: { stringValue: 'reasoning' } }, { key: 'content', value: { stringValue: 'think' } }] } }] } } }] } }] } },
    });
    const [ev] = spanEvents(decode(req)).events;
    assert.deepEqual(ev!.record.gen_ai?.response?.finish_reasons, ['stop', 'length']);
    assert.equal(ev!.record.gen_ai?.provider?.name, 'openai');
    assert.deepEqual(ev!.record.gen_ai?.usage, { input_tokens: 60, cache_creation: { input_tokens: 40 } });
    assert.deepEqual(ev!.record.reasoning, { text: 'think' });
  });

  it('never lets input go below zero when a source reports exclusive input', () => {
    const [ev] = spanEvents(decode(traceRequest([chatSpan({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.cache_read.input_tokens': 500 })]))).events;
    assert.equal(ev!.record.gen_ai?.usage?.input_tokens, 0);
  });

  it('rejects a span with an invalid token count and keeps the others', () => {
    const good = chatSpan({ 'gen_ai.usage.input_tokens': 5 });
    const bad = chatSpan({ 'gen_ai.usage.output_tokens': -3 });
    const out = spanEvents(decode(traceRequest([good, bad])));
    assert.equal(out.events.length, 1);
    assert.equal(out.rejected.length, 1);
    assert.match(out.rejected[0]!.reason, /gen_ai\.usage\.output_tokens must be a non-negative integer/);
  });

  it('does not take gooseai for goose, and keeps other services under their own name', () => {
    for (const [service, harness] of [['gooseai', 'gooseai'], ['goose-ai', 'goose-ai'], ['goose.ai', 'goose.ai'], ['Goose-CLI', 'goose'], ['codename goose', 'goose'], ['My-Agent', 'my-agent']]) {
      const [ev] = spanEvents(decode(traceRequest([chatSpan({ 'gen_ai.usage.input_tokens': 1 })], { 'service.name': service! }))).events;
      assert.equal(ev!.record.harness.name, harness, service);
    }
  });

  it('OTEL_SERVICE_NAME renames goose\'s service.name but not its namespace: still goose (joins its hook events), the custom name kept', () => {
    const [ev] = spanEvents(decode(traceRequest([chatSpan({ 'gen_ai.usage.input_tokens': 1, 'session.id': '20261010_1' })], { 'service.name': 'team-bot', 'service.namespace': 'goose' }))).events;
    assert.equal(ev!.record.harness.name, 'goose');
    assert.equal(ev!.record.raw?.service_name, 'team-bot');
    const [plain] = spanEvents(decode(traceRequest([chatSpan({ 'gen_ai.usage.input_tokens': 1 })], { 'service.name': 'goose' }))).events;
    assert.equal(plain!.record.raw?.service_name, undefined);
  });

  it('gives spans without ids a content-derived id, so a retry is still idempotent', () => {
    const s = chatSpan({ 'gen_ai.usage.input_tokens': 1 }, { traceId: '', spanId: '' });
    const a = spanEvents(decode(traceRequest([s]))).events[0]!.record.event.id;
    const b = spanEvents(decode(traceRequest([s]))).events[0]!.record.event.id;
    assert.equal(a, b);
  });
});
