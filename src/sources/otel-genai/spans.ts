import type { NormalizedEvent } from '../../model/record';
import type { SpanRecord } from '../../model/span';
import { SpanRejected, stringAttr } from '../attributes';
import { extractChatSpan } from './chat-span';
import { extractToolSpan } from './tool-span';
import type { SpanProfile } from './profile';
import type { Extraction } from '../source';

/** Operations that are one model call each. `invoke_agent` spans carry turn totals and are never counted. */
const INFERENCE_OPERATIONS = new Set(['chat', 'generate_content', 'text_completion', 'embeddings']);

/**
 * Spans → Beacon events. Spans are selected by `gen_ai.operation.name`, never by span name (goose's
 * default loop names its chat span `stream_response_from_provider`). A chat span that wraps another
 * chat span of the same export (goose's opt-in loop) reports the child's usage again: only the child
 * counts — but what only the wrapper carries (the provider's failure kind, `goose.chat.purpose`) is
 * folded into the child's event.
 */
export function extractGenAiSpans(spans: readonly SpanRecord[], profile: SpanProfile): Extraction {
  const chatParents = new Set<string>();
  const wrappers = new Map<string, SpanRecord>();
  for (const s of spans) {
    const op = stringAttr(s.attributes, 'gen_ai.operation.name');
    if (op && INFERENCE_OPERATIONS.has(op) && s.parentSpanId) chatParents.add(`${s.traceId}/${s.parentSpanId}`);
  }
  const out: Extraction = { events: [], rejected: [] };
  for (const span of spans) {
    const op = stringAttr(span.attributes, 'gen_ai.operation.name');
    if (!op) continue;
    try {
      if (INFERENCE_OPERATIONS.has(op)) {
        if (chatParents.has(`${span.traceId}/${span.spanId}`)) {
          wrappers.set(`${span.traceId}/${span.spanId}`, span);
          continue;
        }
        out.events.push(extractChatSpan(span, op, profile));
      } else if (op === 'execute_tool') {
        const ev = extractToolSpan(span, profile);
        if (ev) out.events.push(ev);
      }
    } catch (e) {
      if (!(e instanceof SpanRejected)) throw e;
      out.rejected.push({ spanId: span.spanId, reason: e.message });
    }
  }
  if (wrappers.size > 0) for (const ev of out.events) foldWrapper(ev, wrappers);
  return out;
}

/** The wrapper's failure kind and purpose onto its child's model call (a failed wrapper is a failed call). */
function foldWrapper(ev: NormalizedEvent, wrappers: ReadonlyMap<string, SpanRecord>): void {
  const r = ev.record;
  if (r.event.action !== 'model.invoked' || !r.trace?.parent_span_id) return;
  const wrapper = wrappers.get(`${r.trace.id}/${r.trace.parent_span_id}`);
  if (!wrapper) return;
  const errorType = stringAttr(wrapper.attributes, 'error.type');
  const purpose = stringAttr(wrapper.attributes, 'goose.chat.purpose');
  if (errorType && !r.error) {
    r.error = { type: errorType };
    r.severity = 'high';
    r.message = 'Model call failed';
  }
  if (purpose && r.raw) {
    const attributes = (r.raw.attributes ?? {}) as Record<string, unknown>;
    if (attributes['goose.chat.purpose'] === undefined) r.raw.attributes = { ...attributes, 'goose.chat.purpose': purpose };
  }
}
