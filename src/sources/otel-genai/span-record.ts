import { contentEventId, spanEventId } from '../../model/event-id';
import { normalizeHarnessName, resourceHarness } from '../../model/harness';
import type { BeaconRecord, Fidelity } from '../../model/record';
import type { Attributes, SpanRecord } from '../../model/span';
import { stringAttr } from '../attributes';
import { otlpRecord } from '../otlp-record';

/** Attributes that carry message content: kept only in their structured place (if at all), never in `raw`. */
const CONTENT_ATTRIBUTES = new Set([
  'gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions', 'gen_ai.tool.definitions',
  'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'gen_ai.prompt', 'gen_ai.completion',
  'input', 'output', 'user_message', 'trace_input', 'trace_output',
]);

/**
 * Attributes `raw` need not repeat: those the record already holds in their structured place, and the
 * tracing layer's own bookkeeping (code location, thread, busy/idle time). Usage keys stay in `raw`:
 * they are what the source said, before Beacon made the buckets disjoint.
 */
const REPRESENTED_ATTRIBUTES = new Set([
  'session.id', 'gen_ai.conversation.id', 'gen_ai.operation.name', 'gen_ai.provider.name', 'gen_ai.system',
  'gen_ai.request.model', 'gen_ai.response.model', 'gen_ai.response.id', 'gen_ai.response.finish_reasons',
  'gen_ai.tool.name', 'gen_ai.tool.call.id', 'error.type',
  'code.filepath', 'code.file.path', 'code.namespace', 'code.lineno', 'code.line.number', 'code.function.name',
  'thread.id', 'thread.name', 'busy_ns', 'idle_ns',
]);

/** The envelope every OTLP-derived event shares: identity, time, harness, session, trace. */
export function baseRecord(span: SpanRecord, action: string, category: string, fidelity: Fidelity, sourceHarness?: string): BeaconRecord {
  const attrs = span.attributes;
  const named = stringAttr(attrs, 'beacon.harness.name', 'harness.name');
  const harness = named ? normalizeHarnessName(named) : sourceHarness ?? resourceHarness(span.resource);
  return otlpRecord(
    { timeUnixNano: span.startTimeUnixNano, action, category, fidelity, id: eventId(span) },
    { harness, resource: span.resource, sessionId: stringAttr(attrs, 'session.id', 'gen_ai.conversation.id'), traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId },
  );
}

/** `raw` keeps what the source said (e.g. goose's cache-inclusive input tokens), minus message content and repeats. */
export function rawSection(span: SpanRecord): Record<string, unknown> {
  const attributes: Attributes = {};
  for (const [k, v] of Object.entries(span.attributes)) if (!CONTENT_ATTRIBUTES.has(k) && !REPRESENTED_ATTRIBUTES.has(k)) attributes[k] = v;
  return {
    otel_signal: 'traces',
    span_name: span.name,
    span_kind: span.kind,
    status: span.status,
    attributes,
  };
}

function eventId(span: SpanRecord): string {
  if (span.traceId && span.spanId) return spanEventId(span.traceId, span.spanId);
  // No identity on the wire: the span's own content stands in, so a retried export still inserts nothing.
  return contentEventId(
    JSON.stringify([span.traceId, span.spanId, span.name, span.startTimeUnixNano.toString(), span.endTimeUnixNano.toString(), span.attributes]),
  );
}
