import { SEMCONV_USAGE } from '../../model/usage';
import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../../taxonomy/classify';
import type { ToolUse } from '../../taxonomy/tool-use';
import { extractGenAiSpans } from '../otel-genai/spans';
import type { Agent } from '../agent-events';
import type { Extraction, Source } from '../source';
import type { SpanRecord } from '../../model/span';
import { turnEvents } from './turn';
import { asString } from '../attributes';

type Args = Record<string, unknown>;

/** Copilot CLI's built-in tools (`bash`, `view`, `create`, `edit`, `str_replace_editor`…). */
function copilotToolUse(name: string, input: unknown): ToolUse {
  const a = typeof input === 'object' && input !== null ? (input as Args) : {};
  const path = asString(a.path) ?? asString(a.file_path);
  switch (name) {
    case 'bash':
    case 'shell':
      return { kind: 'shell', command: asString(a.command) };
    case 'view':
      return { kind: 'read', ...(path ? { path } : {}) };
    case 'create':
      return { kind: 'write', path, operation: 'create', ...(typeof a.file_text === 'string' ? { change: { content: a.file_text } } : {}) };
    case 'edit':
    case 'str_replace':
      return { kind: 'write', path, operation: 'modify', ...(typeof a.old_str === 'string' && typeof a.new_str === 'string' ? { change: { before: a.old_str, after: a.new_str } } : {}) };
    default:
      return { kind: 'other', fidelity: 'observed' };
  }
}

export function classifyCopilotTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  return classifyToolUse(name, copilotToolUse(name, input), options);
}

/**
 * GitHub Copilot CLI: full GenAI semantic-convention spans, read by the shared reader — one `chat`
 * span per model call (input includes the cache, even for Anthropic models), one `execute_tool` span
 * per tool call with `process.exit.code`; `invoke_agent` carries the turn's totals and is never
 * counted, but carries the turn's prompt and answer when content capture is on. It sends no logs; its metrics repeat the spans' numbers per session and are counted only.
 */
const AGENT: Agent = { harness: 'copilot-cli', usage: SEMCONV_USAGE, classifyTool: classifyCopilotTool };

function spans(list: readonly SpanRecord[]): Extraction {
  const calls = extractGenAiSpans(list, AGENT); // an Agent is a SpanProfile: the same harness, usage and tool table
  return { events: [...turnEvents(AGENT, list), ...calls.events], rejected: calls.rejected };
}

export const copilotCli: Source = {
  harness: AGENT.harness,
  matches: (resource) => resource['service.name'] === 'github-copilot',
  spans,
};
