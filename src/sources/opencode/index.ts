import type { NormalizedEvent } from '../../model/record';
import { spanDurationMs, type SpanRecord } from '../../model/span';
import { SEMCONV_USAGE } from '../../model/usage';
import { classifyOpencodeTool } from './tools';

type Args = Record<string, unknown>;
import { jsonAttr, lastUserText, modelCallEvent, promptEvent, toolCallEvent, type Agent, type Observation } from '../agent-events';
import { SpanRejected, stringAttr, tokenAttr } from '../attributes';
import type { Extraction, Source } from '../source';


/** The AI SDK normalises every provider to inclusive numbers (Anthropic's cache is folded into input). */
const AGENT: Agent = { harness: 'opencode', usage: SEMCONV_USAGE, classifyTool: classifyOpencodeTool };

function observation(span: SpanRecord): Observation {
  return {
    time: span.startTimeUnixNano,
    resource: span.resource,
    sessionId: stringAttr(span.attributes, 'session.id', 'ai.telemetry.metadata.sessionId'),
    traceId: span.traceId,
    spanId: span.spanId,
    key: `${span.traceId}/${span.spanId}`,
  };
}

function spanEvents(span: SpanRecord): NormalizedEvent[] {
  const a = span.attributes;
  const o = observation(span);
  const durationMs = spanDurationMs(span);
  if (span.name === 'ai.streamText.doStream' || span.name === 'ai.generateText.doGenerate') {
    const finish = stringAttr(a, 'ai.response.finishReason');
    const call = modelCallEvent(AGENT, o, {
      model: stringAttr(a, 'ai.response.model', 'ai.model.id'),
      provider: stringAttr(a, 'ai.model.provider'),
      responseId: stringAttr(a, 'ai.response.id'),
      ...(finish ? { finishReasons: [finish] } : {}),
      usage: {
        input: tokenAttr(a, 'ai.usage.inputTokens'), output: tokenAttr(a, 'ai.usage.outputTokens'),
        cacheRead: tokenAttr(a, 'ai.usage.inputTokenDetails.cacheReadTokens', 'ai.usage.cachedInputTokens'),
        cacheWrite: tokenAttr(a, 'ai.usage.inputTokenDetails.cacheWriteTokens'),
        reasoning: tokenAttr(a, 'ai.usage.outputTokenDetails.reasoningTokens', 'ai.usage.reasoningTokens'),
      },
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(finish === 'error' ? { error: 'error' } : {}),
    });
    // A tool-using call whose conversation ends with the user's message starts a turn: its prompt.
    // (A side call such as the title generation has no tools; a step after a tool result ends with it.)
    const prompt = a['ai.prompt.tools'] !== undefined ? lastUserText(jsonAttr(a, 'ai.prompt.messages')) : undefined;
    return prompt === undefined ? [call] : [promptEvent(AGENT, { ...o, key: `${o.key}/prompt` }, prompt), call];
  }
  if (span.name === 'ai.toolCall') {
    const result = jsonAttr(a, 'ai.toolCall.result');
    const meta = typeof result === 'object' && result !== null ? (result as Args).metadata : undefined;
    const exit = typeof meta === 'object' && meta !== null && typeof (meta as Args).exit === 'number' ? ((meta as Args).exit as number) : undefined;
    const ev = toolCallEvent(AGENT, o, {
      name: stringAttr(a, 'ai.toolCall.name') ?? '',
      callId: stringAttr(a, 'ai.toolCall.id'),
      args: jsonAttr(a, 'ai.toolCall.args'),
      ...(exit !== undefined ? { exitCode: exit } : {}),
      ...(span.status.code === 2 ? { success: false } : {}),
      ...(durationMs !== undefined ? { durationMs } : {}),
    });
    return ev ? [ev] : [];
  }
  return [];
}

/**
 * opencode: the AI SDK's spans. One model call is an `ai.streamText` span and its
 * `ai.streamText.doStream` child with the same numbers: only the child is read. Side calls (the
 * session title) are real model calls and count. A tool call is `ai.toolCall` (its `Tool.execute`
 * twin is not read). The ~1,000 Effect service spans of a run (`sql.execute`, `Config.get`…) are
 * passed over by name before any other work; its log records carry no event names and are counted only.
 */
function spans(list: readonly SpanRecord[]): Extraction {
  const out: Extraction = { events: [], rejected: [] };
  for (const span of list) {
    if (!span.name.startsWith('ai.')) continue;
    try {
      out.events.push(...spanEvents(span));
    } catch (e) {
      if (!(e instanceof SpanRejected)) throw e;
      out.rejected.push({ spanId: span.spanId, reason: e.message });
    }
  }
  return out;
}

export const opencode: Source = {
  harness: AGENT.harness,
  matches: (resource) => resource['service.name'] === 'opencode',
  spans,
};
