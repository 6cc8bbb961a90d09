import { SEMCONV_USAGE } from '../../model/usage';
import { classifyCopilotTool } from './tools';
import { extractGenAiSpans } from '../otel-genai/spans';
import type { Agent } from '../agent-events';
import type { Extraction, Source } from '../source';
import type { SpanRecord } from '../../model/span';
import { turnEvents } from './turn';


/**
 * GitHub Copilot CLI: full GenAI semantic-convention spans, read by the shared reader — one `chat`
 * span per model call (input includes the cache, even for Anthropic models), one `execute_tool` span
 * per tool call with `process.exit.code`; `invoke_agent` carries the turn's totals and is never
 * counted, but carries the turn's prompt and answer when content capture is on. It sends no logs; its metrics repeat the spans' numbers per session and are counted only.
 */
export const AGENT: Agent = { harness: 'copilot-cli', usage: SEMCONV_USAGE, classifyTool: classifyCopilotTool };

function spans(list: readonly SpanRecord[]): Extraction {
  const calls = extractGenAiSpans(list, AGENT); // an Agent is a SpanProfile: the same harness, usage and tool table
  // Copilot's hooks send no call id: its execute_tool span's id is given to the hook call (store/log/call-join.ts)
  for (const ev of calls.events) if (ev.record.gen_ai?.operation?.name === 'execute_tool' && ev.record.gen_ai.tool?.call?.id) ev.joinCall = true;
  return { events: [...turnEvents(AGENT, list), ...calls.events], rejected: calls.rejected };
}

export const copilotCli: Source = {
  harness: AGENT.harness,
  matches: (resource) => resource['service.name'] === 'github-copilot',
  spans,
};
