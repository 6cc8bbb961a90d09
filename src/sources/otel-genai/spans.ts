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
 * chat span of the same export (goose's opt-in loop) reports the child's usage again: only the child counts.
 */
export function extractGenAiSpans(spans: readonly SpanRecord[], profile: SpanProfile): Extraction {
  const chatParents = new Set<string>();
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
        if (chatParents.has(`${span.traceId}/${span.spanId}`)) continue;
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
  return out;
}
