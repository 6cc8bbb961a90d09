import type { GenAiFields, NormalizedEvent } from '../../model/record';
import { SPAN_STATUS_ERROR, spanDurationMs, type SpanRecord } from '../../model/span';
import { boolAttr, numberAttr, stringAttr, structuredAttr } from '../attributes';
import { baseRecord, rawSection } from './span-record';
import { finishReasons, reasoningText } from './messages';
import { extractUsage } from './usage';
import type { SpanProfile } from './profile';

/** One model call (`gen_ai.operation.name` = chat and kin) → one `model.invoked` event. */
export function extractChatSpan(span: SpanRecord, operation: string, profile: SpanProfile): NormalizedEvent {
  const a = span.attributes;
  const record = baseRecord(span, 'model.invoked', 'model', 'observed', profile.harness);

  const requestModel = stringAttr(a, 'gen_ai.request.model');
  const responseModel = stringAttr(a, 'gen_ai.response.model');
  const provider = stringAttr(a, 'gen_ai.provider.name', 'gen_ai.system');
  const conversation = stringAttr(a, 'gen_ai.conversation.id');
  const responseId = stringAttr(a, 'gen_ai.response.id');
  const reasons = finishReasons(a['gen_ai.response.finish_reasons']);
  const usage = extractUsage(a, profile.usage);
  const outputMessages = a['gen_ai.output.messages'] !== undefined ? structuredAttr(a['gen_ai.output.messages']) : undefined;
  const reasoning = reasoningText(outputMessages);

  const gen: GenAiFields = { operation: { name: operation } };
  if (provider) gen.provider = { name: provider };
  if (conversation) gen.conversation = { id: conversation };
  const request: NonNullable<GenAiFields['request']> = {};
  if (requestModel) request.model = requestModel;
  const maxTokens = numberAttr(a, 'gen_ai.request.max_tokens');
  if (maxTokens !== undefined) request.max_tokens = maxTokens;
  const temperature = numberAttr(a, 'gen_ai.request.temperature');
  if (temperature !== undefined) request.temperature = temperature;
  const stream = boolAttr(a, 'gen_ai.request.stream');
  if (stream !== undefined) request.stream = stream;
  if (Object.keys(request).length) gen.request = request;
  if (responseId || responseModel || reasons) {
    gen.response = { ...(responseId ? { id: responseId } : {}), ...(responseModel ? { model: responseModel } : {}), ...(reasons ? { finish_reasons: reasons } : {}) };
  }
  if (usage) gen.usage = usage;
  if (outputMessages !== undefined) gen.output = { messages: outputMessages };
  // the span's end is the call's end: its duration, as agents that report one carry it (issue 24 item 11)
  const durationMs = spanDurationMs(span);
  if (durationMs !== undefined) gen.duration_ms = durationMs;
  record.gen_ai = gen;

  const model = responseModel ?? requestModel;
  if (model) record.model = model;
  if (reasoning) record.reasoning = { text: reasoning };
  const errorType = stringAttr(a, 'error.type');
  if (errorType || span.status.code === SPAN_STATUS_ERROR) {
    record.severity = 'high';
    record.error = { type: errorType ?? '_OTHER' };
  }
  record.message = 'Model call completed';
  record.raw = rawSection(span);

  return {
    record,
    timeUnixNano: span.startTimeUnixNano,
    dropIfChatChildStored: true,
    // the same call may be in the agent's session store, imported already (store/log/merge.ts)
    mergeWithStored: true,
  };
}
