/** A decoded OTLP span, independent of the wire encoding it arrived in (protobuf or JSON). */

/** Attribute values as Beacon keeps them: OTLP AnyValue mapped onto plain JSON-able values.
 *  int64 values outside the safe integer range are kept as decimal strings, never rounded. */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attributes = Record<string, AttrValue>;

export interface SpanRecord {
  /** lowercase hex, '' when absent */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attributes;
  status: { code: number; message: string };
  resource: Attributes;
  scope: { name: string; version: string };
}

export const SPAN_STATUS_ERROR = 2;

/** How long the span took, in whole ms; undefined when it has no end (0) or ends before it starts. */
export function spanDurationMs(span: Pick<SpanRecord, 'startTimeUnixNano' | 'endTimeUnixNano'>): number | undefined {
  if (span.endTimeUnixNano === 0n || span.endTimeUnixNano < span.startTimeUnixNano) return undefined;
  return Number((span.endTimeUnixNano - span.startTimeUnixNano) / 1_000_000n);
}
