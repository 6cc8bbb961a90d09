import type { LogRecord, MetricPoint } from '../model/otlp-signals';
import type { NormalizedEvent } from '../model/record';
import type { Attributes, SpanRecord } from '../model/span';
import { SOURCES } from './registry';
import type { Extraction, Source } from './source';

/** The source that speaks for a resource: the first in the registry that recognises it. */
export function sourceFor(resource: Attributes): Source {
  return SOURCES.find((s) => s.matches(resource)) ?? SOURCES[SOURCES.length - 1]!;
}

/**
 * Records grouped by their source, in order of first appearance. The decoders hand every record of
 * one ResourceSpans/ResourceLogs/ResourceMetrics the same resource object, so the lookup runs once
 * per resource, not per record.
 */
function bySource<T extends { resource: Attributes }>(items: readonly T[]): Map<Source, T[]> {
  const known = new Map<Attributes, Source>();
  const groups = new Map<Source, T[]>();
  for (const item of items) {
    let source = known.get(item.resource);
    if (!source) known.set(item.resource, (source = sourceFor(item.resource)));
    const group = groups.get(source);
    if (group) group.push(item);
    else groups.set(source, [item]);
  }
  return groups;
}

function extractAll<T extends { resource: Attributes }>(items: readonly T[], read: (s: Source, group: T[]) => Extraction | undefined): Extraction {
  const out: Extraction = { events: [], rejected: [] };
  for (const [source, group] of bySource(items)) {
    const got = read(source, group);
    if (!got) continue;
    out.events.push(...got.events);
    out.rejected.push(...got.rejected);
  }
  return out;
}

/** A traces export → events, each span read by its agent's source. */
export function spanEvents(spans: readonly SpanRecord[]): Extraction {
  return extractAll(spans, (s, group) => s.spans?.(group));
}

/** A logs export → events; records of agents whose logs Beacon does not keep are counted only. */
export function logEvents(records: readonly LogRecord[]): Extraction {
  return extractAll(records, (s, group) => s.logs?.(group));
}

/** A metrics export → events (summaries); points of agents whose metrics Beacon does not keep are counted only. */
export function metricEvents(points: readonly MetricPoint[]): NormalizedEvent[] {
  return extractAll(points, (s, group) => (s.metrics ? { events: s.metrics(group), rejected: [] } : undefined)).events;
}
