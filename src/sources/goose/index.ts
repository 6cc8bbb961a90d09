import { isGooseName } from '../../model/harness';
import type { Attributes, SpanRecord } from '../../model/span';
import { extractGenAiSpans } from '../otel-genai/spans';
import type { SpanProfile } from '../otel-genai/profile';
import type { Extraction, Source } from '../source';
import { extractLogEvents } from './log-records';
import { extractMetricEvents } from './metric-points';
import { classifyGooseTool } from './tools';
import { hookFailureFromSpan } from './hook-health';
import { GOOSE_USAGE } from './usage';

const PROFILE: SpanProfile = { harness: 'goose', usage: GOOSE_USAGE, classifyTool: classifyGooseTool };

/**
 * Under OTEL_SERVICE_NAME goose is recognised by its namespace and recorded as `goose` (so its OTLP
 * events join its hook events); the custom name is kept as the instance's name, in `raw.service_name`.
 */
function keepInstanceName<T extends { resource: Attributes }>(items: readonly T[], extract: (group: T[]) => Extraction): Extraction {
  const byResource = new Map<Attributes, T[]>();
  for (const item of items) {
    const group = byResource.get(item.resource);
    if (group) group.push(item);
    else byResource.set(item.resource, [item]);
  }
  const out: Extraction = { events: [], rejected: [] };
  for (const [resource, group] of byResource) {
    const got = extract(group);
    const name = resource['service.name'];
    if (typeof name === 'string' && name !== '' && !isGooseName(name)) for (const ev of got.events) ev.record.raw = { ...ev.record.raw, service_name: name };
    out.events.push(...got.events);
    out.rejected.push(...got.rejected);
  }
  return out;
}

/**
 * goose names the agent of a turn on its `invoke_agent` span (`gen_ai.agent.name`: a custom agent's
 * name, else the recipe's title, else `goose`); the turn's model and tool calls carry it too.
 */
function withAgentName(spans: readonly SpanRecord[], got: Extraction): Extraction {
  const names = new Map<string, string>();
  for (const s of spans) {
    const name = s.attributes['gen_ai.agent.name'];
    if (s.attributes['gen_ai.operation.name'] === 'invoke_agent' && typeof name === 'string' && name !== '') names.set(s.traceId, name);
  }
  if (names.size === 0) return got;
  for (const ev of got.events) {
    const name = ev.record.trace?.id ? names.get(ev.record.trace.id) : undefined;
    if (name) (ev.record.gen_ai ??= {}).agent = { name };
  }
  return got;
}

/** Beacon's own hooks failing inside goose (its `execute_hook` spans), beside the turn's events. */
function withHookFailures(spans: readonly SpanRecord[], got: Extraction): Extraction {
  for (const s of spans) {
    const ev = hookFailureFromSpan(s);
    if (ev) got.events.push(ev);
  }
  return got;
}

/**
 * goose: GenAI semantic-convention spans (`chat`, `execute_tool`), its security and approval log
 * records, its counters. Its hooks and stream-json are read by `hook-events.ts` and `stream-json.ts`
 * in this folder, for the hook and stream transports.
 */
export const goose: Source = {
  harness: 'goose',
  // OTEL_SERVICE_NAME replaces goose's service.name; its service.namespace stays "goose" (otel/otlp.rs).
  matches: (resource: Attributes) => resource['service.namespace'] === 'goose' || (typeof resource['service.name'] === 'string' && isGooseName(resource['service.name'])),
  spans: (spans) => keepInstanceName(spans, (group) => withHookFailures(group, withAgentName(group, extractGenAiSpans(group, PROFILE)))),
  logs: (records) => keepInstanceName(records, (group) => ({ events: extractLogEvents(group).events, rejected: [] })),
  metrics: (points) => keepInstanceName(points, (group) => ({ events: extractMetricEvents(group), rejected: [] })).events,
};
