import { geminiStyleLogs } from '../gemini-style-logs';
import { classifyGeminiStyleTool } from '../gemini-tools';
import type { Agent } from '../agent-events';
import type { Source } from '../source';
import type { Attributes } from '../../model/span';
import { stringAttr } from '../attributes';
import { geminiToolSpans } from './tool-spans';

/**
 * Gemini CLI's own version, where its export states one. 0.61 sets `service.version` to Node.js's
 * (`v20.20.2`, the `v` + `process.runtime.version` of the same resource) and sends the CLI's version
 * nowhere: then none is recorded, never Node's. A `service.version` that is not the runtime's is the CLI's.
 */
function cliVersion(resource: Attributes): string | null {
  const stated = stringAttr(resource, 'service.version');
  if (stated === undefined) return null;
  const node = stringAttr(resource, 'process.runtime.version');
  // without the runtime's version beside it, Node's form (`v20.20.2`; the CLI's is `0.61.0`) tells them apart
  const isNode = node !== undefined ? stated.replace(/^v/, '') === node : /^v\d/.test(stated);
  return isNode ? null : stated;
}

/**
 * Gemini CLI: input includes cached content; output EXCLUDES thoughts (`thoughts_token_count` is
 * added to it).
 */
export const AGENT: Agent = {
  harness: 'gemini-cli',
  usage: { inputIncludesCache: true, outputIncludesReasoning: false },
  classifyTool: classifyGeminiStyleTool,
  version: cliVersion,
};

export const geminiCli: Source = {
  harness: AGENT.harness,
  matches: (resource) => resource['service.name'] === 'gemini-cli',
  logs(records) {
    const read = geminiStyleLogs(AGENT, 'gemini_cli.', records);
    // its tool log record has no call id: the store gives it its span's (tool-spans.ts), and the hook's call takes it
    for (const ev of read.events) if (ev.record.gen_ai?.tool) ev.joinCall = true;
    return read;
  },
  spans: (spans) => geminiToolSpans(AGENT, spans),
};
