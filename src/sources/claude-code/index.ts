import type { LogRecord } from '../../model/otlp-signals';
import type { NormalizedEvent } from '../../model/record';
import type { UsageSemantics } from '../../model/usage';
import { readLogRecords, approvalEvent, jsonAttr, logObservation, modelCallEvent, promptEvent, responseEvent, toolCallEvent, type Agent } from '../agent-events';
import { boolLike, numberLike, stringAttr, tokenAttr } from '../attributes';
import type { Extraction, Source } from '../source';
import { classifyClaudeTool } from './tools';

/** Anthropic's wire values passed through: input excludes both cache buckets; no reasoning count. */
export const CLAUDE_CODE_USAGE: UsageSemantics = { inputIncludesCache: false, outputIncludesReasoning: true };
export const AGENT: Agent = { harness: 'claude-code', usage: CLAUDE_CODE_USAGE, classifyTool: classifyClaudeTool };

/**
 * Claude Code: its log records (`claude_code.*`, short name in `event.name`) are the channel read —
 * one per model call, tool call, prompt and decision. Its beta spans and its metrics repeat the same
 * numbers (per call and per session) and are counted only: reading them too would count twice.
 */
function logs(records: readonly LogRecord[]): Extraction {
  return readLogRecords(records, logEvent);
}

function logEvent(rec: LogRecord): NormalizedEvent | undefined {
  const a = rec.attributes;
  const name = stringAttr(a, 'event.name') ?? (typeof rec.body === 'string' ? rec.body.replace(/^claude_code\./, '') : undefined);
  const o = logObservation(rec, stringAttr(a, 'session.id'));
  switch (name) {
    case 'api_request':
    case 'api_error':
      return modelCallEvent(AGENT, o, {
        model: stringAttr(a, 'model'),
        provider: 'anthropic',
        usage: {
          input: tokenAttr(a, 'input_tokens'), output: tokenAttr(a, 'output_tokens'),
          cacheRead: tokenAttr(a, 'cache_read_tokens'), cacheWrite: tokenAttr(a, 'cache_creation_tokens'),
          costUsd: numberLike(a, 'cost_usd'),
        },
        durationMs: numberLike(a, 'duration_ms'),
        // The error's kind, never its message (free text: it can quote the request).
        ...(name === 'api_error' ? { error: numberLike(a, 'status_code') !== undefined ? `http_${numberLike(a, 'status_code')}` : 'api_error' } : {}),
      });
    case 'user_prompt':
      // `prompt.id` is the hook payload's `prompt_id` (the same through the turn)
      return promptEvent(AGENT, o, stringAttr(a, 'prompt'), { id: stringAttr(a, 'prompt.id'), length: numberLike(a, 'prompt_length') });
    case 'assistant_response':
      // `prompt.id` is the Stop hook's `prompt_id`: the turn this end belongs to
      return responseEvent(AGENT, o, stringAttr(a, 'response'), stringAttr(a, 'prompt.id'));
    case 'tool_result': {
      const input = jsonAttr(a, 'tool_input') ?? jsonAttr(a, 'tool_parameters');
      return toolCallEvent(AGENT, o, {
        name: stringAttr(a, 'tool_name') ?? '',
        callId: stringAttr(a, 'tool_use_id'),
        args: input,
        success: boolLike(a, 'success'),
        durationMs: numberLike(a, 'duration_ms'),
      });
    }
    case 'tool_decision': {
      const decision = stringAttr(a, 'decision');
      return approvalEvent(AGENT, o, { allowed: decision === 'accept', by: stringAttr(a, 'source'), toolName: stringAttr(a, 'tool_name'), callId: stringAttr(a, 'tool_use_id') });
    }
    default:
      return undefined;
  }
}

export const claudeCode: Source = {
  harness: AGENT.harness,
  matches: (resource) => resource['service.name'] === 'claude-code',
  logs,
};
