import { geminiStyleLogs } from '../gemini-style-logs';
import { classifyGeminiStyleTool } from '../gemini-tools';
import type { Agent } from '../agent-events';
import type { Source } from '../source';

/**
 * Gemini CLI: input includes cached content; output EXCLUDES thoughts (`thoughts_token_count` is
 * added to it). Its `service.version` is Node.js's version (`v20.20.2`), not the CLI's: not recorded.
 */
const AGENT: Agent = {
  harness: 'gemini-cli',
  usage: { inputIncludesCache: true, outputIncludesReasoning: false },
  classifyTool: classifyGeminiStyleTool,
  version: () => undefined,
};

export const geminiCli: Source = {
  harness: AGENT.harness,
  matches: (resource) => resource['service.name'] === 'gemini-cli',
  logs: (records) => geminiStyleLogs(AGENT, 'gemini_cli.', records),
};
