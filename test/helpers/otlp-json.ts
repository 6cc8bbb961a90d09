/** Builds OTLP/JSON export requests the way an SDK serializes them (ids hex, int64 as strings). */
export type Attr = string | number | boolean | bigint;

export interface SpanSpec {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  start: bigint;
  end: bigint;
  kind?: number;
  attributes: Record<string, Attr>;
  status?: { code?: number; message?: string };
}

export function anyValue(v: Attr): Record<string, unknown> {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'bigint') return { intValue: v.toString() };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

export function kvs(attrs: Record<string, Attr>): { key: string; value: Record<string, unknown> }[] {
  return Object.entries(attrs).map(([key, v]) => ({ key, value: anyValue(v) }));
}

export function traceRequest(spans: SpanSpec[], resource: Record<string, Attr> = GOOSE_RESOURCE, scope = 'goose'): Record<string, unknown> {
  return {
    resourceSpans: [
      {
        resource: { attributes: kvs(resource) },
        scopeSpans: [
          {
            scope: { name: scope },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: s.kind ?? 1,
              startTimeUnixNano: s.start.toString(),
              endTimeUnixNano: s.end.toString(),
              attributes: kvs(s.attributes),
              status: s.status ?? {},
            })),
          },
        ],
      },
    ],
  };
}

/** goose's resource (otel/otlp.rs): service.name/namespace goose, version, host, user. */
export const GOOSE_RESOURCE: Record<string, Attr> = {
  'service.name': 'goose',
  'service.version': '1.47.0',
  'service.namespace': 'goose',
  'host.name': 'devbox',
  'user.name': 'alice',
  'telemetry.sdk.language': 'rust',
  'telemetry.sdk.name': 'opentelemetry',
  'telemetry.sdk.version': '0.32.0',
};
