import type { NormalizedEvent } from '../../model/record';
import type { SpanRecord } from '../../model/span';
import { assistantText, lastUserText, promptEvent, responseEvent, type Agent } from '../agent-events';
import { stringAttr, structuredAttr } from '../attributes';
import { userPromptText } from './prompt-text';

/**
 * A turn's prompt and answer from its `invoke_agent` span: with content capture on, Copilot CLI puts
 * the user's message in `gen_ai.input.messages` and the final answer in `gen_ai.output.messages`.
 * The span's usage is the turn's total and is never read (its `chat` children are the calls).
 */
export function turnEvents(agent: Agent, spans: readonly SpanRecord[]): NormalizedEvent[] {
  const out: NormalizedEvent[] = [];
  for (const span of spans) {
    if (stringAttr(span.attributes, 'gen_ai.operation.name') !== 'invoke_agent') continue;
    const o = {
      resource: span.resource,
      sessionId: stringAttr(span.attributes, 'gen_ai.conversation.id', 'session.id'),
      traceId: span.traceId,
      spanId: span.spanId,
      key: `${span.traceId}/${span.spanId}`,
    };
    const prompt = lastUserText(structuredAttr(span.attributes['gen_ai.input.messages']));
    if (prompt !== undefined) out.push(promptEvent(agent, { ...o, time: span.startTimeUnixNano }, userPromptText(prompt)));
    const answer = assistantText(structuredAttr(span.attributes['gen_ai.output.messages']));
    if (answer !== undefined) out.push(responseEvent(agent, { ...o, time: span.endTimeUnixNano }, answer));
  }
  return out;
}
