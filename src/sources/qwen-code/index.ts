import { SEMCONV_USAGE } from '../../model/usage';
import { geminiStyleLogs } from '../gemini-style-logs';
import { classifyGeminiStyleTool } from '../gemini-tools';
import type { Agent } from '../agent-events';
import type { Source } from '../source';

/**
 * Qwen Code: Gemini CLI's record and field names with the OpenAI meaning of the numbers (checked
 * against known values: `total_token_count` = input + output, so output INCLUDES thoughts).
 */
export const AGENT: Agent = { harness: 'qwen-code', usage: SEMCONV_USAGE, classifyTool: classifyGeminiStyleTool };

export const qwenCode: Source = {
  harness: AGENT.harness,
  matches: (resource) => resource['service.name'] === 'qwen-code',
  logs: (records) => geminiStyleLogs(AGENT, 'qwen-code.', records),
};
