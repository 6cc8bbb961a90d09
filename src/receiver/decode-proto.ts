import { BeaconError } from '../model/errors';
import { temporalityOf, type LogRecord, type MetricPoint } from '../model/otlp-signals';
import type { Attributes, SpanRecord } from '../model/span';
import { NESTED, mapAnyValue, protobufDepthError, doubleValue, int64Value, mapAttributes, type AnyValueReader, type KeyValueLike } from './any-value';
import protobuf from 'protobufjs';
import { OtlpTypes } from './proto-root';
import type { Signal } from './signals';

/** protobufjs' representation of 64-bit integers (the `long` package). */
interface LongLike {
  low: number;
  high: number;
  unsigned: boolean;
}

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

export function requestType(signal: Signal): protobuf.Type {
  return signal === 'traces' ? OtlpTypes.traceRequest : signal === 'metrics' ? OtlpTypes.metricsRequest : OtlpTypes.logsRequest;
}

function decode(signal: Signal, body: Buffer): Msg {
  const type = requestType(signal);
  try {
    return type.decode(body) as unknown as Msg;
  } catch (e) {
    const why = (e as Error).message;
    if (why === 'max depth exceeded') throw protobufDepthError(type.name, protobuf.util.recursionLimit);
    throw new BeaconError('bad_data', `invalid protobuf ${type.name}: ${why}`);
  }
}

export function decodeProtoTraces(body: Buffer): SpanRecord[] {
  const req = decode('traces', body);
  const out: SpanRecord[] = [];
  for (const rs of (req.resourceSpans ?? []) as Msg[]) {
    const resource = rs.resource ? attributes(rs.resource.attributes) : {};
    for (const ss of (rs.scopeSpans ?? []) as Msg[]) {
      const scope = { name: ss.scope?.name ?? '', version: ss.scope?.version ?? '' };
      for (const s of (ss.spans ?? []) as Msg[]) {
        out.push({
          traceId: id(s.traceId, 16, 'trace_id'),
          spanId: id(s.spanId, 8, 'span_id'),
          parentSpanId: id(s.parentSpanId, 8, 'parent_span_id'),
          name: s.name ?? '',
          kind: s.kind ?? 0,
          startTimeUnixNano: u64(s.startTimeUnixNano),
          endTimeUnixNano: u64(s.endTimeUnixNano),
          attributes: attributes(s.attributes),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

/** Logs: every record, decoded (goose's security and approval records become events; genai decides). */
export function decodeProtoLogs(body: Buffer): LogRecord[] {
  const req = decode('logs', body);
  const out: LogRecord[] = [];
  for (const rl of (req.resourceLogs ?? []) as Msg[]) {
    const resource = rl.resource ? attributes(rl.resource.attributes) : {};
    for (const sl of (rl.scopeLogs ?? []) as Msg[]) {
      const scope = { name: sl.scope?.name ?? '', version: sl.scope?.version ?? '' };
      for (const r of (sl.logRecords ?? []) as Msg[]) {
        out.push({
          timeUnixNano: u64(r.timeUnixNano),
          observedTimeUnixNano: u64(r.observedTimeUnixNano),
          severityNumber: r.severityNumber ?? 0,
          severityText: r.severityText ?? '',
          body: r.body ? mapAnyValue(r.body, PROTO_ANY_VALUE, 'body', 0) : null,
          attributes: attributes(r.attributes, 'logRecord'),
          traceId: id(r.traceId, 16, 'trace_id'),
          spanId: id(r.spanId, 8, 'span_id'),
          eventName: r.eventName ?? '',
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

/**
 * Metrics: the number points of sums and gauges (goose's counters), and the count of every data
 * point (histograms and summaries are counted, not kept).
 */
export function decodeProtoMetrics(body: Buffer): { points: MetricPoint[]; dataPoints: number } {
  const req = decode('metrics', body);
  const points: MetricPoint[] = [];
  let dataPoints = 0;
  for (const rm of (req.resourceMetrics ?? []) as Msg[]) {
    const resource = rm.resource ? attributes(rm.resource.attributes) : {};
    for (const sm of (rm.scopeMetrics ?? []) as Msg[]) {
      const scope = { name: sm.scope?.name ?? '', version: sm.scope?.version ?? '' };
      for (const m of (sm.metrics ?? []) as Msg[]) {
        const data = m.gauge ?? m.sum ?? m.histogram ?? m.exponentialHistogram ?? m.summary;
        dataPoints += data?.dataPoints?.length ?? 0;
        const kind = m.sum ? 'sum' : m.gauge ? 'gauge' : undefined;
        if (!kind) continue;
        for (const p of (data.dataPoints ?? []) as Msg[]) {
          const value = own(p, 'asInt') ? int64Value(i64(p.asInt), 'asInt') : own(p, 'asDouble') ? doubleValue(p.asDouble) : undefined;
          if (value === undefined) continue;
          points.push({
            metric: m.name ?? '',
            unit: m.unit ?? '',
            kind,
            temporality: kind === 'sum' ? temporalityOf(m.sum.aggregationTemporality ?? 0) : 'unspecified',
            monotonic: kind === 'sum' && m.sum.isMonotonic === true,
            startTimeUnixNano: u64(p.startTimeUnixNano),
            timeUnixNano: u64(p.timeUnixNano),
            value,
            attributes: attributes(p.attributes, 'dataPoint'),
            resource,
            scope,
          });
        }
      }
    }
  }
  return { points, dataPoints };
}

/** Ids are fixed-length bytes; empty means absent. Any other length is invalid data (as the Collector rules). */
function id(bytes: Uint8Array | undefined, length: number, field: string): string {
  if (!bytes || bytes.length === 0) return '';
  if (bytes.length !== length) throw new BeaconError('bad_data', `${field} must be ${length} bytes, got ${bytes.length}`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function u64(v: LongLike | number | undefined): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'number') return BigInt(v);
  return (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
}

function i64(v: LongLike | number): bigint {
  if (typeof v === 'number') return BigInt(v);
  return BigInt.asIntN(64, (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0));
}

function attributes(kvs: Msg[] | undefined, where = 'attributes'): Attributes {
  return mapAttributes(kvs as KeyValueLike<Msg>[] | undefined, PROTO_ANY_VALUE, where);
}

/** protobufjs' AnyValue: the set oneof member is an own property. */
const PROTO_ANY_VALUE: AnyValueReader<Msg> = {
  key: (k) => (typeof k === 'string' ? k : ''),
  scalar(v, key) {
    // Own-property checks: the protobufjs oneof getter is twice as slow on this hot path.
    if (own(v, 'stringValue')) return v.stringValue;
    if (own(v, 'intValue')) return int64Value(i64(v.intValue), `attribute ${key}: intValue`);
    if (own(v, 'boolValue')) return v.boolValue;
    if (own(v, 'doubleValue')) return doubleValue(v.doubleValue);
    if (own(v, 'arrayValue') || own(v, 'kvlistValue')) return NESTED;
    if (own(v, 'bytesValue')) return Buffer.from(v.bytesValue).toString('base64');
    return null;
  },
  arrayItems: (v) => (own(v, 'arrayValue') ? ((v.arrayValue?.values ?? []) as Msg[]) : undefined),
  kvlistItems: (v) => (v.kvlistValue?.values ?? []) as KeyValueLike<Msg>[],
};
