import { ValueType } from '@opentelemetry/api';
import { JsonMetricsSerializer, ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationTemporality, DataPointType, type ResourceMetrics } from '@opentelemetry/sdk-metrics';

/**
 * goose's counters as tracing-opentelemetry's MetricsLayer exports them (docs:
 * goose-logs-and-metrics-facts.md §3): `monotonic_counter.goose.X = 1` adds to a u64 Counter named
 * `goose.X`, exported as a monotonic integer Sum, cumulative by default, under the scope
 * `tracing/tracing-opentelemetry` 0.33.0; **every other field of the event is a point attribute**,
 * the message included (and on the security counters the scanned call and the explanation).
 * Cumulative points keep the counter's start time (goose's first such event) and grow until goose
 * restarts. Serialized by the OpenTelemetry JS serializers.
 */
export interface CounterPoint {
  attributes: Record<string, string | number | boolean>;
  value: number;
}

export interface Counter {
  name: string;
  points: CounterPoint[];
}

const hr = (ns: bigint): [number, number] => [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];

export function gooseMetrics(counters: Counter[], o: { start: bigint; time: bigint; temporality?: 'cumulative' | 'delta' }): ResourceMetrics {
  return {
    resource: resourceFromAttributes({ 'service.name': 'goose', 'service.version': '1.47.0', 'service.namespace': 'goose', 'host.name': 'devbox', 'user.name': 'alice' }),
    scopeMetrics: [{
      scope: { name: 'tracing/tracing-opentelemetry', version: '0.33.0' },
      metrics: counters.map((c) => ({
        descriptor: { name: c.name, description: '', unit: '', valueType: ValueType.INT },
        aggregationTemporality: o.temporality === 'delta' ? AggregationTemporality.DELTA : AggregationTemporality.CUMULATIVE,
        dataPointType: DataPointType.SUM as const,
        isMonotonic: true,
        dataPoints: c.points.map((p) => ({ startTime: hr(o.start), endTime: hr(o.time), attributes: p.attributes, value: p.value })),
      })),
    }],
  };
}

export const encodeMetrics = (rm: ResourceMetrics) => Buffer.from(ProtobufMetricsSerializer.serializeRequest(rm)!);
export const encodeMetricsJson = (rm: ResourceMetrics) => Buffer.from(JsonMetricsSerializer.serializeRequest(rm)!);

/** goose-cli session/mod.rs:2702: `{message, tool_name, result}`. */
export const toolCompletion = (tool: string, result: 'success' | 'error', value: number): CounterPoint => ({ attributes: { message: 'Tool call completed', tool_name: tool, result }, value });

/** security/mod.rs:185: one point per finding (the finding id is unique), with the scanned call. */
export const findingPoint = (findingId: string, command: string): CounterPoint => ({
  attributes: {
    message: 'prompt injection scan: finding above threshold', 'security.event_type': 'prompt_injection_scan', 'security.action': 'BLOCK',
    'security.confidence': 0.949999988079071, 'security.finding_id': findingId, 'security.explanation': `Pattern-based detection | Command: ${command}`,
    'tool.name': 'shell', 'tool.request_id': `toolu_${findingId}`, 'tool.call_json': JSON.stringify({ name: 'shell', arguments: { command } }),
  },
  value: 1,
});
