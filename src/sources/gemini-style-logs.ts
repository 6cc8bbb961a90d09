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
 * `tool_call` (one per tool call; Qwen's has the model's call id as `call_id` from 0.24, Gemini's
 * none — only its `tool_call` span does, which Gemini's source reads for that id alone and the store
 * folds into this record: gemini-cli/tool-spans.ts). The other spans (Gemini's `llm_call`, Qwen's
 * `llm_request` from 0.24, repeat the usage) and the metrics (per-session sums) are counted only.
 */
export function geminiStyleLogs(agent: Agent, prefix: string, records: readonly LogRecord[]): Extraction {
  return readLogRecords(records, (rec) => logEvent(agent, prefix, rec));
}

/**
 * The model provider an auth type means (`auth_type` on Gemini CLI's records, on Qwen Code's
 * api_response), as GenAI `gen_ai.provider.name`. The export names no base URL: an auth type not
 * listed gives no provider rather than a guess.
 */
const PROVIDER_BY_AUTH: Readonly<Record<string, string>> = {
  'gemini-api-key': 'gcp.gemini', gemini: 'gcp.gemini',
  'vertex-ai': 'gcp.vertex_ai',
  // Sign-in with Google and the Cloud credentials go through Code Assist (Gemini CLI's metrics say gcp.gen_ai)
  'oauth-personal': 'gcp.gen_ai', 'cloud-shell': 'gcp.gen_ai', 'compute-default-credentials': 'gcp.gen_ai',
  openai: 'openai', anthropic: 'anthropic', 'qwen-oauth': 'qwen',
};

/** The provider an auth type means (Qwen Code's session store copies `auth_type` too), if it is one listed. */
export function providerOfAuthType(auth: string | undefined): string | undefined {
  return auth !== undefined && Object.hasOwn(PROVIDER_BY_AUTH, auth) ? PROVIDER_BY_AUTH[auth] : undefined;
}

const providerOf = (a: Attributes): string | undefined => providerOfAuthType(stringAttr(a, 'auth_type'));

function finishReasons(a: Attributes): string[] | undefined {
  const v = a.finish_reasons;
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
}

/**
 * How a tool call ended. `success` says only that the tool ran to its end: a shell command that
 * exited non-zero is `success=true` with its exit code (and `isError`) in the tool's `metadata`, and
 * an error is also stated by `status` (Qwen: `error`) and `error_type`. Any of them saying failure
 * makes the call failed.
 */
function toolOutcome(a: Attributes): { success?: boolean; exitCode?: number } {
  const meta = jsonAttr(a, 'metadata');
  const m = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {};
  const code = [m.exitCode, m.exit_code].find((v) => typeof v === 'number' && Number.isInteger(v)) as number | undefined;
  const said = boolLike(a, 'success');
  const failed = said === false || m.isError === true || m.is_error === true || stringAttr(a, 'status') === 'error' || stringAttr(a, 'error_type') !== undefined || (code !== undefined && code !== 0);
  return { ...(failed ? { success: false } : said !== undefined ? { success: said } : {}), ...(code !== undefined ? { exitCode: code } : {}) };
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
        provider: providerOf(a),
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
      // Qwen's hook payload carries the same `prompt_id`; Gemini's carries none (its length then tells)
      return promptEvent(agent, o, stringAttr(a, 'prompt'), { id: stringAttr(a, 'prompt_id'), length: numberLike(a, 'prompt_length') });
    case 'tool_call':
      return toolCallEvent(agent, o, {
        name: stringAttr(a, 'function_name') ?? '',
        callId: stringAttr(a, 'call_id'),
        args: jsonAttr(a, 'function_args'),
        ...toolOutcome(a),
        durationMs: numberLike(a, 'duration_ms'),
      });
    default:
      return undefined;
  }
}
