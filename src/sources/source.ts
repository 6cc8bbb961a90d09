import type { Attributes, SpanRecord } from '../model/span';
import type { LogRecord, MetricPoint } from '../model/otlp-signals';
import type { NormalizedEvent } from '../model/record';

/** What a source made of one signal's records: events, and the records it refused with why. */
export interface Extraction {
  events: NormalizedEvent[];
  /** records whose data was invalid (a span id, or '' for records without one), with why */
  rejected: { spanId: string; reason: string }[];
}

/**
 * One coding agent as Beacon reads it: how to recognise its OTLP resource and what each of its
 * signals becomes (its token semantics and tool table live where it reads them: its `Agent` for
 * agent-events.ts, its `SpanProfile` for the GenAI span reader). A signal the agent does not send (or
 * Beacon does not keep) is left out and its records are counted only. Adding an agent is one folder
 * under `sources/` exporting one of these, and one line in `registry.ts`.
 */
export interface Source {
  /** Beacon's harness name for the agent (`harness.name` on every record) */
  readonly harness: string;
  /** does this resource (service.name, service.namespace…) belong to the agent? */
  matches(resource: Attributes): boolean;
  spans?(spans: readonly SpanRecord[]): Extraction;
  logs?(records: readonly LogRecord[]): Extraction;
  metrics?(points: readonly MetricPoint[]): NormalizedEvent[];
}
