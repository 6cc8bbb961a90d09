import { randomBytes } from 'node:crypto';
import type { Attr, SpanSpec } from './otlp-json';

/**
 * Spans shaped as goose 1.47 exports them (docs: goose-wire-facts.md §2): kind INTERNAL, tracing span
 * names, attributes from tracing fields (lists as JSON strings), plus tracing-opentelemetry's own
 * code.* / thread.* / busy_ns / idle_ns.
 */
export const hex = (bytes: number) => randomBytes(bytes).toString('hex');

const lib = (fn: string): Record<string, Attr> => ({
  'code.filepath': 'crates/goose/src/agents/reply_parts.rs',
  'code.namespace': `goose::agents::${fn}`,
  'code.lineno': 309,
  'thread.id': 7,
  'thread.name': 'tokio-runtime-worker',
  busy_ns: 1834000,
  idle_ns: 4200000000,
});

export interface Turn {
  spans: SpanSpec[];
  traceId: string;
  sessionId: string;
  /** the model calls a correct collector must store, in order */
  chatSpanIds: string[];
  toolCalls: { spanId: string; callId: string; tool: string }[];
}

export interface TurnOptions {
  sessionId?: string;
  start?: bigint;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: messages and tool arguments exported */
  captureContent?: boolean;
}

/** goose's default loop: reply → reply_stream → {stream_response_from_provider ×2, dispatch_tool_call ×3 → execute_hook}. */
export function gooseDefaultLoopTurn(options: TurnOptions = {}): Turn {
  const traceId = hex(16);
  const sessionId = options.sessionId ?? '20260821_3';
  const t0 = options.start ?? 1787301000000000000n;
  const capture = options.captureContent ?? true;
  const reply = hex(8);
  const replyStream = hex(8);
  const chat1 = hex(8);
  const chat2 = hex(8);
  const shell = hex(8);
  const edit = hex(8);
  const todo = hex(8);
  const hook = hex(8);
  const ms = (n: number) => t0 + BigInt(n) * 1_000_000n;
  const session = { 'session.id': sessionId, 'gen_ai.conversation.id': sessionId };

  const spans: SpanSpec[] = [
    {
      name: 'stream_response_from_provider', traceId, spanId: chat1, parentSpanId: replyStream, start: ms(10), end: ms(4200),
      attributes: {
        ...session, ...lib('reply_parts'),
        'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': 'claude-sonnet-4-5',
        'gen_ai.request.stream': true, 'gen_ai.request.max_tokens': 16000, 'gen_ai.request.temperature': 0.5,
        'gen_ai.response.model': 'claude-sonnet-4-5-20250929', 'gen_ai.response.finish_reasons': '["tool_use"]',
        'gen_ai.response.id': 'msg_01XFDUDYJgAACzvnptvVoYEL',
        'gen_ai.usage.input_tokens': 12840, 'gen_ai.usage.output_tokens': 212,
        'gen_ai.usage.cache_read.input_tokens': 11200, 'gen_ai.usage.cache_creation.input_tokens': 1500,
        ...(capture
          ? {
              'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'fix the failing test' }] }]),
              'gen_ai.output.messages': JSON.stringify([
                { role: 'assistant', parts: [{ type: 'reasoning', content: 'Run the tests first.' }, { type: 'tool_call', id: 'toolu_01AbC', name: 'shell', arguments: { command: 'cargo test' } }], finish_reason: 'tool_call' },
              ]),
            }
          : {}),
      },
    },
    {
      name: 'execute_hook', traceId, spanId: hook, parentSpanId: shell, start: ms(4310), end: ms(4390),
      attributes: { 'gen_ai.operation.name': 'execute_hook', 'goose.hook.event': 'PreToolUse', 'goose.hook.plugin': 'beacon-endpoint', 'session.id': sessionId },
    },
    {
      name: 'dispatch_tool_call', traceId, spanId: shell, parentSpanId: replyStream, start: ms(4300), end: ms(9800),
      attributes: {
        ...session, ...lib('agent'),
        input: JSON.stringify({ arguments: { command: 'cargo test' }, tool: 'shell' }),
        'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'shell', 'gen_ai.tool.call.id': 'toolu_01AbC',
        ...(capture
          ? {
              'gen_ai.tool.call.arguments': JSON.stringify({ command: 'cargo test' }),
              'gen_ai.tool.call.result': JSON.stringify({ content: [{ type: 'text', text: 'test result: ok', annotations: { priority: 0.0 } }], structuredContent: { stdout: 'test result: ok', stderr: '', exit_code: 0 }, isError: false }),
            }
          : {}),
      },
    },
    {
      name: 'dispatch_tool_call', traceId, spanId: edit, parentSpanId: replyStream, start: ms(9900), end: ms(9950),
      attributes: {
        ...session, ...lib('agent'),
        input: JSON.stringify({ arguments: { path: 'src/lib.rs', before: 'fn old()', after: 'fn new()' }, tool: 'edit' }),
        'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'edit', 'gen_ai.tool.call.id': 'toolu_02XyZ',
        'error.type': 'tool_error',
        ...(capture ? { 'gen_ai.tool.call.arguments': JSON.stringify({ path: 'src/lib.rs', before: 'fn old()', after: 'fn new()' }), output: JSON.stringify({ status: 'error', error: 'before text not found' }) } : {}),
      },
    },
    {
      name: 'dispatch_tool_call', traceId, spanId: todo, parentSpanId: replyStream, start: ms(9960), end: ms(9970),
      attributes: { ...session, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'todo__todo_write', 'gen_ai.tool.call.id': 'toolu_03Todo' },
    },
    {
      name: 'stream_response_from_provider', traceId, spanId: chat2, parentSpanId: replyStream, start: ms(10000), end: ms(12500),
      attributes: {
        ...session, ...lib('reply_parts'),
        'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': 'claude-sonnet-4-5', 'gen_ai.request.stream': true,
        'gen_ai.response.model': 'claude-sonnet-4-5-20250929', 'gen_ai.response.finish_reasons': '["end_turn"]', 'gen_ai.response.id': 'msg_02',
        'gen_ai.usage.input_tokens': 13300, 'gen_ai.usage.output_tokens': 98,
        'gen_ai.usage.cache_read.input_tokens': 12700, 'gen_ai.usage.cache_creation.input_tokens': 0,
      },
    },
    {
      name: 'reply_stream', traceId, spanId: replyStream, parentSpanId: reply, start: ms(5), end: ms(12600),
      attributes: {
        ...session, 'gen_ai.operation.name': 'invoke_agent', 'session.user': 'alice', 'session.host': 'devbox', 'session.agent_type': 'goose',
        'gen_ai.agent.name': 'goose', 'gen_ai.request.model': 'claude-sonnet-4-5', 'gen_ai.provider.name': 'anthropic',
        trace_output: 'All tests pass now.', 'gen_ai.usage.input_tokens': 26140, 'gen_ai.usage.output_tokens': 310,
      },
    },
    {
      name: 'reply', traceId, spanId: reply, start: ms(0), end: ms(12700),
      attributes: {
        'gen_ai.operation.name': 'invoke_agent', 'session.id': sessionId, 'gen_ai.agent.name': 'goose',
        user_message: 'fix the failing test', trace_input: 'fix the failing test', 'gen_ai.usage.input_tokens': 26140, 'gen_ai.usage.output_tokens': 310,
      },
    },
  ];
  return {
    spans, traceId, sessionId,
    chatSpanIds: [chat1, chat2],
    toolCalls: [
      { spanId: shell, callId: 'toolu_01AbC', tool: 'shell' },
      { spanId: edit, callId: 'toolu_02XyZ', tool: 'edit' },
    ],
  };
}

/**
 * goose's opt-in loop (GOOSE_STATE_MACHINE=1): reply → {chat → stream_response_from_provider, execute_tool → execute_hook}.
 * The `chat` span wraps a `stream_response_from_provider` chat span with the same usage: one model call.
 */
export function gooseStateMachineTurn(options: TurnOptions = {}): Turn {
  const traceId = hex(16);
  const sessionId = options.sessionId ?? '20260822_1';
  const t0 = options.start ?? 1787400000000000000n;
  const ms = (n: number) => t0 + BigInt(n) * 1_000_000n;
  const reply = hex(8);
  const chat = hex(8);
  const inner = hex(8);
  const tool = hex(8);
  const session = { 'session.id': sessionId, 'gen_ai.conversation.id': sessionId };
  const common = {
    'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-5.4',
    'gen_ai.response.model': 'gpt-5.4-2026-03-05', 'gen_ai.response.finish_reasons': '["tool_calls"]', 'gen_ai.response.id': 'chatcmpl-9',
    'gen_ai.usage.input_tokens': 5000, 'gen_ai.usage.output_tokens': 120,
  };
  const spans: SpanSpec[] = [
    {
      name: 'stream_response_from_provider', traceId, spanId: inner, parentSpanId: chat, start: ms(2), end: ms(2900),
      attributes: { ...session, ...common, 'gen_ai.request.stream': true, 'gen_ai.usage.cache_read.input_tokens': 4096, 'gen_ai.usage.cache_creation.input_tokens': 0 },
    },
    { name: 'chat', traceId, spanId: chat, parentSpanId: reply, start: ms(1), end: ms(3000), attributes: { ...session, ...common, 'goose.chat.purpose': 'reply' } },
    {
      name: 'execute_tool', traceId, spanId: tool, parentSpanId: reply, start: ms(3100), end: ms(3400),
      attributes: { ...session, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'developer__shell', 'gen_ai.tool.call.id': 'call_sm_1', input: JSON.stringify({ tool: 'developer__shell', arguments: { command: 'ls -la' } }) },
    },
    { name: 'reply', traceId, spanId: reply, start: ms(0), end: ms(3500), attributes: { 'gen_ai.operation.name': 'invoke_agent', 'session.id': sessionId, 'gen_ai.usage.input_tokens': 5000, 'gen_ai.usage.output_tokens': 120 } },
  ];
  return { spans, traceId, sessionId, chatSpanIds: [inner], toolCalls: [{ spanId: tool, callId: 'call_sm_1', tool: 'developer__shell' }] };
}
