import { isGooseName } from '../../model/harness';
import type { Attributes } from '../../model/span';
import { extractGenAiSpans } from '../otel-genai/spans';
import type { SpanProfile } from '../otel-genai/profile';
import type { Source } from '../source';
import { extractLogEvents } from './log-records';
import { extractMetricEvents } from './metric-points';
import { classifyGooseTool } from './tools';
import { GOOSE_USAGE } from './usage';

const PROFILE: SpanProfile = { harness: 'goose', usage: GOOSE_USAGE, classifyTool: classifyGooseTool };

/**
 * goose: GenAI semantic-convention spans (`chat`, `execute_tool`), its security and approval log
 * records, its counters. Its hooks and stream-json are read by `hook-events.ts` and `stream-json.ts`
 * in this folder, for the hook and stream transports.
 */
export const goose: Source = {
  harness: 'goose',
  matches: (resource: Attributes) => typeof resource['service.name'] === 'string' && isGooseName(resource['service.name']),
  usage: GOOSE_USAGE,
  classifyTool: classifyGooseTool,
  spans: (spans) => extractGenAiSpans(spans, PROFILE),
  logs: (records) => ({ events: extractLogEvents(records).events, rejected: [] }),
  metrics: (points) => extractMetricEvents(points),
};
