import { BeaconError } from '../model/errors';
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

/** Metrics: data points are counted (and the body validated by decoding it whole, attributes included). */
export function countProtoMetrics(body: Buffer): number {
  const req = decode('metrics', body);
  let n = 0;
  for (const rm of (req.resourceMetrics ?? []) as Msg[]) {
    attributes(rm.resource?.attributes, 'resource');
    for (const sm of (rm.scopeMetrics ?? []) as Msg[]) {
      for (const m of (sm.metrics ?? []) as Msg[]) {
        const data = m.gauge ?? m.sum ?? m.histogram ?? m.exponentialHistogram ?? m.summary;
        for (const dp of (data?.dataPoints ?? []) as Msg[]) attributes(dp.attributes, 'dataPoint');
        n += data?.dataPoints?.length ?? 0;
      }
    }
  }
  return n;
}

export function countProtoLogs(body: Buffer): number {
  const req = decode('logs', body);
  let n = 0;
  for (const rl of (req.resourceLogs ?? []) as Msg[]) {
    attributes(rl.resource?.attributes, 'resource');
    for (const sl of (rl.scopeLogs ?? []) as Msg[]) {
      for (const r of (sl.logRecords ?? []) as Msg[]) {
        id(r.traceId, 16, 'trace_id');
        id(r.spanId, 8, 'span_id');
        attributes(r.attributes, 'logRecord');
        if (r.body) mapAnyValue(r.body, PROTO_ANY_VALUE, 'body', 0);
        n++;
      }
    }
  }
  return n;
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
