import type { LogRecord } from '../model/otlp-signals';
import type { NormalizedEvent } from '../model/record';
import type { Attributes } from '../model/span';
import { jsonAttr, logObservation, modelCallEvent, promptEvent, readLogRecords, toolCallEvent, type Agent } from './agent-events';
import { boolLike, numberLike, stringAttr, tokenAttr } from './attributes';
import type { Extraction } from './source';

/**
 * The log records of Gemini CLI and of its fork Qwen Code: the same record names under each one's
 * prefix (`gemini_cli.api_response`, `qwen-code.api_response`) and the same attribute names — with
 * different meanings, which each source's `Agent.usage` states (Gemini's output excludes thoughts,
 * Qwen's includes them). This is the stage's shared reader of that shape, not either agent's source.
 *
 * Read: `api_response` (one per model call, with usage), `api_error` (a failed call), `user_prompt`,
 * `tool_call` (one per tool call; it carries no call id — only Gemini's spans do, and reading those
 * too would make a second event for the call). The spans (`llm_call` repeats the usage) and the
 * metrics (per-session sums) are counted only.
 */
export function geminiStyleLogs(agent: Agent, prefix: string, records: readonly LogRecord[]): Extraction {
  return readLogRecords(records, (rec) => logEvent(agent, prefix, rec));
}

function finishReasons(a: Attributes): string[] | undefined {
  const v = a.finish_reasons;
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

function logEvent(agent: Agent, prefix: string, rec: LogRecord): NormalizedEvent | undefined {
  const a = rec.attributes;
  const name = stringAttr(a, 'event.name');
  if (!name?.startsWith(prefix)) return undefined;
  const o = logObservation(rec, stringAttr(a, 'session.id') ?? stringAttr(rec.resource, 'session.id'));
  switch (name.slice(prefix.length)) {
    case 'api_response':
    case 'api_error':
      return modelCallEvent(agent, o, {
        model: stringAttr(a, 'model'),
        responseId: stringAttr(a, 'response_id'),
        finishReasons: finishReasons(a),
        usage: {
          input: tokenAttr(a, 'input_token_count'), output: tokenAttr(a, 'output_token_count'),
          cacheRead: tokenAttr(a, 'cached_content_token_count'), reasoning: tokenAttr(a, 'thoughts_token_count'),
        },
        durationMs: numberLike(a, 'duration_ms'),
        ...(name.endsWith('api_error') ? { error: stringAttr(a, 'error_type') ?? 'api_error' } : {}),
      });
    case 'user_prompt':
      return promptEvent(agent, o, stringAttr(a, 'prompt'));
    case 'tool_call':
      return toolCallEvent(agent, o, {
        name: stringAttr(a, 'function_name') ?? '',
        args: jsonAttr(a, 'function_args'),
        success: boolLike(a, 'success'),
        durationMs: numberLike(a, 'duration_ms'),
      });
    default:
      return undefined;
  }
}
