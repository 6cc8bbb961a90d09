import type { NormalizedEvent } from '../../model/record';
import { SPAN_STATUS_ERROR, spanDurationMs, type SpanRecord } from '../../model/span';
import { toolCallEvent, type Agent } from '../agent-events';
import { stringAttr } from '../attributes';
import type { Extraction } from '../source';

/**
 * Gemini CLI's `tool_call` spans, for the one thing its tool log record lacks: the call id
 * (`gen_ai.tool.call_id`, `<tool>__<the model's id>`, the form its stream-json's `tool_id` has too;
 * Gemini invents one when the model sent none). The span is the log record's child: the log record
 * carries the trace and span id of the `schedule_tool_calls` span that is the tool span's parent.
 * 0.61 with content capture off (observed): tool name, call id, times and an OK status even for a
 * command that exited 2 — no arguments, no outcome. The store folds span and log record into one
 * record with the span's id, whichever arrives first, and gives the id to the hook's record of the
 * call (store/log/call-join.ts); the model's other spans repeat the log records and are counted only.
 */
export function geminiToolSpans(agent: Agent, spans: readonly SpanRecord[]): Extraction {
  const events: NormalizedEvent[] = [];
  for (const span of spans) {
    const a = span.attributes;
    const name = stringAttr(a, 'gen_ai.tool.name');
    const callId = stringAttr(a, 'gen_ai.tool.call_id');
    if (span.name !== 'tool_call' || !name || !callId) continue;
    const sessionId = stringAttr(a, 'gen_ai.conversation.id') ?? stringAttr(span.resource, 'session.id');
    const o = {
      time: span.startTimeUnixNano, resource: span.resource, traceId: span.traceId, spanId: span.spanId,
      ...(sessionId ? { sessionId } : {}), key: JSON.stringify(['tool_call span', span.traceId, span.spanId]),
    };
    const durationMs = spanDurationMs(span);
    const ev = toolCallEvent(agent, o, { name, callId, args: undefined, ...(span.status.code === SPAN_STATUS_ERROR ? { success: false } : {}), ...(durationMs !== undefined ? { durationMs } : {}) });
    if (!ev) continue;
    if (span.parentSpanId) ev.record.trace = { ...ev.record.trace, parent_span_id: span.parentSpanId };
    ev.joinCall = true;
    events.push(ev);
  }
  return { events, rejected: [] };
}
