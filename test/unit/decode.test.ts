import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { JsonMetricsSerializer, JsonTraceSerializer, ProtobufLogsSerializer, ProtobufMetricsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { decodeProtoLogs } from '../../src/receiver/signals/logs';
import { decodeJsonMetrics, decodeProtoMetrics } from '../../src/receiver/signals/metrics';
import { decodeJsonTraces, decodeProtoTraces } from '../../src/receiver/signals/traces';
import { BeaconError } from '../../src/model/errors';

function sdkSpans() {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'goose', 'host.name': 'devbox' }), spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('goose', '1.0.0');
  for (let i = 0; i < 20; i++) {
    const span = tracer.startSpan(`span-${i}`, {
      kind: i % 2 ? SpanKind.CLIENT : SpanKind.INTERNAL,
      attributes: { 's': `v${i}`, 'n': i * 1000, 'neg': -i - 1, 'd': i + 0.25, 'b': i % 3 === 0, 'arr': ['x', 'y'], 'gen_ai.usage.input_tokens': 100 + i },
    });
    span.addEvent('evt', { k: 'v' });
    if (i % 5 === 0) span.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
    span.end();
  }
  return memory.getFinishedSpans();
}

describe('OTLP decoders', () => {
  const spans = sdkSpans();
  const fromProto = decodeProtoTraces(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!));
  const fromJson = decodeJsonTraces(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!));

  it('protobuf and JSON encodings of the same SDK spans decode to identical records', () => {
    assert.equal(fromProto.length, 20);
    assert.deepEqual(fromJson, fromProto);
  });

  it('match the SDK ground truth: ids, nanosecond times, kind, status, attributes, resource, scope', () => {
    for (let i = 0; i < spans.length; i++) {
      const s = spans[i]!;
      const d = fromProto[i]!;
      assert.equal(d.traceId, s.spanContext().traceId);
      assert.equal(d.spanId, s.spanContext().spanId);
      assert.equal(d.startTimeUnixNano, BigInt(s.startTime[0]) * 1_000_000_000n + BigInt(s.startTime[1]));
      assert.equal(d.kind, s.kind + 1, 'OTLP kind = API kind + 1');
      assert.equal(d.status.code, s.status.code);
      assert.deepEqual(d.attributes, { ...s.attributes, arr: ['x', 'y'] });
      assert.equal(d.resource['service.name'], 'goose');
      assert.deepEqual(d.scope, { name: 'goose', version: '1.0.0' });
    }
  });

  it('JSON: uppercase hex, enum names, snake_case keys, int64 numbers or strings, unknown fields', () => {
    const body = JSON.stringify({
      resource_spans: [{ scope_spans: [{ spans: [{ trace_id: '5B8EFFF798038103D269B633813FC60C', span_id: 'EEE19B7EC3C1B174', kind: 'SPAN_KIND_SERVER', start_time_unix_nano: 1544712660000000000, status: { code: 'STATUS_CODE_ERROR' }, extra: [1, 2], attributes: [{ key: 'i', value: { intValue: '-42' } }, { key: 'kv', value: { kvlistValue: { values: [{ key: 'a', value: { boolValue: false } }] } } }, { key: 'e', value: {} }] }] }] }],
    });
    const [s] = decodeJsonTraces(Buffer.from(body));
    assert.equal(s!.traceId, '5b8efff798038103d269b633813fc60c');
    assert.equal(s!.kind, 2);
    assert.equal(s!.status.code, 2);
    assert.equal(s!.startTimeUnixNano, 1544712660000000000n);
    assert.deepEqual(s!.attributes, { i: -42, kv: { a: false }, e: null });
  });

  it('rejects wrong-length ids, non-hex ids, bad enums and bad int64 as bad data', () => {
    const bad = (span: object) => () => decodeJsonTraces(Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] })));
    const isBadData = (e: unknown) => e instanceof BeaconError && e.code === 'bad_data';
    assert.throws(bad({ traceId: 'abcd' }), isBadData);
    assert.throws(bad({ spanId: 'zzzzzzzzzzzzzzzz' }), isBadData);
    assert.throws(bad({ kind: 'SPAN_KIND_NOPE' }), isBadData);
    assert.throws(bad({ startTimeUnixNano: '12.5' }), isBadData);
    assert.throws(bad({ attributes: [{ key: 'x', value: { intValue: 'ten' } }] }), isBadData);
    assert.throws(() => decodeProtoTraces(Buffer.from([0x0a, 0x05, 0x12, 0x03, 0x12, 0x01])), isBadData);
  });

  it('counts metric data points and log records in both encodings', async () => {
    const { MeterProvider, PeriodicExportingMetricReader, InMemoryMetricExporter, AggregationTemporality } = await import('@opentelemetry/sdk-metrics');
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60000 });
    const mp = new MeterProvider({ readers: [reader] });
    const counter = mp.getMeter('goose').createCounter('goose.tool_calls');
    counter.add(1, { tool_name: 'shell' });
    counter.add(2, { tool_name: 'edit' });
    mp.getMeter('goose').createHistogram('goose.session_duration_ms').record(12);
    await reader.forceFlush();
    const rm = exporter.getMetrics()[0]!;
    assert.equal(decodeProtoMetrics(Buffer.from(ProtobufMetricsSerializer.serializeRequest(rm)!)).dataPoints, 3);
    assert.equal(decodeJsonMetrics(Buffer.from(JsonMetricsSerializer.serializeRequest(rm)!)).dataPoints, 3);
    await mp.shutdown();
    assert.equal(decodeProtoLogs(Buffer.from(ProtobufLogsSerializer.serializeRequest([])!)).length, 0);
  });
});
