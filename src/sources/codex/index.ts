import type { LogRecord } from '../../model/otlp-signals';
import type { NormalizedEvent } from '../../model/record';
import { SEMCONV_USAGE } from '../../model/usage';
import { classifyToolUse } from '../../taxonomy/classify';
import { readLogRecords, approvalEvent, jsonAttr, logObservation, modelCallEvent, promptEvent, toolCallEvent, type Agent } from '../agent-events';
import { boolLike, numberLike, stringAttr, tokenAttr } from '../attributes';
import type { Extraction, Source } from '../source';
import { classifyCodexTool, codexToolUse } from './tools';

/** Codex reports the Responses API's numbers: input includes cached tokens, output includes reasoning. */
export const AGENT: Agent = {
  harness: 'codex',
  usage: SEMCONV_USAGE,
  classifyTool: classifyCodexTool,
};

/**
 * Codex: its log records (`exporter` in `[otel]`, the one exporter every Codex setup has) are the
 * channel read. The name is in the `event.name` attribute only: `LogRecord.event_name` holds the
 * tracing callsite (`event otel/src/…:1187`) and is never read. A model call is the
 * `codex.sse_event` whose `event.kind` is `response.completed` and that carries token counts (each
 * response has a second, count-less one). Its ~550 spans per turn (the `handle_responses` span
 * repeats the counts) and its per-turn metrics are counted only.
 */
function logs(records: readonly LogRecord[]): Extraction {
  return readLogRecords(records, (rec) => logEvent(rec, CONVERSATIONS));
}

/**
 * The conversations seen lately, across exports: a run longer than the batch delay sends its logs in
 * several requests, and a later one's model calls have no `codex.conversation_starts` beside them
 * (observed with 0.171 under `beacon install codex`: the turn's last call came without its provider).
 * Bounded: the oldest conversation is forgotten first.
 */
const CONVERSATIONS = new Map<string, Conversation>();
const REMEMBERED_CONVERSATIONS = 512;

function conversationOf(conversations: Map<string, Conversation>, id: string): Conversation {
  let c = conversations.get(id);
  if (c) {
    conversations.delete(id); // most recently used last
  } else {
    c = {};
    if (conversations.size >= REMEMBERED_CONVERSATIONS) conversations.delete(conversations.keys().next().value!);
  }
  conversations.set(id, c);
  return c;
}

/**
 * What a model call's own record (the counted `codex.sse_event`) does not say, read from the
 * conversation's records before it in the same export (Codex sends a run's logs in one request, in
 * the order it emitted them): the provider its `codex.conversation_starts` names (`provider_name`,
 * the `[model_providers]` entry's name) and the duration of the HTTP request it streamed from
 * (`codex.api_request` `duration_ms`, logged when the response began).
 */
interface Conversation {
  provider?: string;
  requestMs?: number;
}

/** "Process exited with code N" in the tool output Codex logs (it has no exit-code attribute). */
export function exitCode(output: string | undefined): number | undefined {
  const m = output ? /Process exited with code (-?\d+)/.exec(output) : null;
  return m ? Number(m[1]) : undefined;
}

function logEvent(rec: LogRecord, conversations: Map<string, Conversation>): NormalizedEvent | undefined {
  const a = rec.attributes;
  const name = stringAttr(a, 'event.name');
  if (name === undefined) return undefined;
  const conversationId = stringAttr(a, 'conversation.id');
  const o = logObservation(rec, conversationId);
  const conversation = conversationOf(conversations, conversationId ?? '');
  switch (name) {
    case 'codex.conversation_starts': {
      const provider = stringAttr(a, 'provider_name');
      if (provider) conversation.provider = provider.toLowerCase();
      return undefined;
    }
    case 'codex.api_request':
      conversation.requestMs = numberLike(a, 'duration_ms');
      return undefined;
    case 'codex.sse_event': {
      if (stringAttr(a, 'event.kind') !== 'response.completed' || a.input_token_count === undefined) return undefined;
      const durationMs = conversation.requestMs;
      conversation.requestMs = undefined;
      return modelCallEvent(AGENT, o, {
        model: stringAttr(a, 'model', 'slug'),
        ...(conversation.provider ? { provider: conversation.provider } : {}),
        ...(durationMs !== undefined ? { durationMs } : {}),
        usage: {
          input: tokenAttr(a, 'input_token_count'), output: tokenAttr(a, 'output_token_count'),
          cacheRead: tokenAttr(a, 'cached_token_count'), cacheWrite: tokenAttr(a, 'cache_write_token_count'),
          reasoning: tokenAttr(a, 'reasoning_token_count'),
        },
      });
    }
    case 'codex.user_prompt':
      // no prompt or turn id on the record (its span's parent carries the turn id, and spans are dropped): its length, in Unicode scalar values (Rust's `chars().count()`)
      return promptEvent(AGENT, o, stringAttr(a, 'prompt'), { length: numberLike(a, 'prompt_length') });
    case 'codex.tool_decision': {
      const decision = stringAttr(a, 'decision') ?? '';
      return approvalEvent(AGENT, o, { allowed: /^approved/.test(decision), by: stringAttr(a, 'source'), toolName: stringAttr(a, 'tool_name'), callId: stringAttr(a, 'call_id') });
    }
    case 'codex.tool_result': {
      const toolName = stringAttr(a, 'tool_name') ?? '';
      const args = jsonAttr(a, 'arguments');
      const mcpServer = stringAttr(a, 'mcp_server');
      const agent: Agent = mcpServer ? { ...AGENT, classifyTool: (n, i, opt) => classifyToolUse(n, codexToolUse(n, i, mcpServer), opt) } : AGENT;
      return toolCallEvent(agent, o, {
        name: toolName,
        callId: stringAttr(a, 'call_id'),
        args,
        success: boolLike(a, 'success'),
        exitCode: exitCode(stringAttr(a, 'output')),
        durationMs: numberLike(a, 'duration_ms'),
      });
    }
    default:
      return undefined;
  }
}

export const codex: Source = {
  harness: AGENT.harness,
  // codex_exec, codex-cli, codex_tui, codex-app-server…: every Codex front end names itself codex_* / codex-*.
  matches: (resource) => typeof resource['service.name'] === 'string' && /^codex([-_]|$)/.test(resource['service.name']),
  logs,
};
