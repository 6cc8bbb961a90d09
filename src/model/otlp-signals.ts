import type { Attributes } from './span';

/** A decoded OTLP log record, independent of the wire encoding it arrived in (protobuf or JSON). */
export interface LogRecord {
  /** 0 when unset: goose's tracing appender never sets it (only the observed time) */
  timeUnixNano: bigint;
  observedTimeUnixNano: bigint;
  severityNumber: number;
  severityText: string;
  /** the body as an attribute value (goose: the event's formatted `message`) */
  body: Attributes[string];
  /** duplicated keys (goose copies `session.id` from two nested spans) keep their last value */
  attributes: Attributes;
  /** lowercase hex, '' when absent */
  traceId: string;
  spanId: string;
  eventName: string;
  resource: Attributes;
  /** the instrumentation scope: for goose's appender, the Rust module path of the event */
  scope: { name: string; version: string };
}

export type Temporality = 'cumulative' | 'delta' | 'unspecified';

/** One number data point of a Sum or Gauge metric (the only kinds goose's counters produce). */
export interface MetricPoint {
  metric: string;
  unit: string;
  kind: 'sum' | 'gauge';
  temporality: Temporality;
  monotonic: boolean;
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  /** as_int or as_double; an int64 beyond 2^53 arrives as a decimal string */
  value: number | string;
  attributes: Attributes;
  resource: Attributes;
  scope: { name: string; version: string };
}

/** OTLP's AggregationTemporality enum (1 delta, 2 cumulative). */
export function temporalityOf(n: number): Temporality {
  return n === 1 ? 'delta' : n === 2 ? 'cumulative' : 'unspecified';
}
