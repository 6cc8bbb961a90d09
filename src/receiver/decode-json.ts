import { parse as parseLossless } from 'lossless-json';
import { BeaconError } from '../model/errors';
import { temporalityOf, type LogRecord, type MetricPoint } from '../model/otlp-signals';
import type { AttrValue, Attributes, SpanRecord } from '../model/span';

/**
 * OTLP/JSON: proto3 JSON with OTLP's rules — hex ids (any case), int64 as string or number, enums as
 * integers (names accepted too, as the Collector does), unknown fields ignored. snake_case keys are
 * accepted as well. No precision is lost on integers above 2^53.
 */
type Obj = Record<string, unknown>;

/** A bare integer literal of 16+ digits may exceed 2^53: only then is the slower lossless parser used. */
const MAYBE_BIG_INTEGER = /[:[,]\s*-?\d{16,}/;

export function parseOtlpJson(body: Buffer): Obj {
  const text = body.toString('utf8');
  let v: unknown;
  try {
    v = MAYBE_BIG_INTEGER.test(text) ? parseLossless(text, null, parseNumber) : JSON.parse(text);
  } catch (e) {
    throw new BeaconError('bad_data', `invalid JSON: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BeaconError('bad_data', 'an OTLP/JSON request must be a JSON object');
  return v as Obj;
}

function parseNumber(s: string): number | bigint {
  if (/^-?\d+$/.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : BigInt(s);
  }
  return Number(s);
}

function field(o: Obj, camel: string, snake?: string): unknown {
  const v = o[camel];
  return v !== undefined ? v : snake !== undefined ? o[snake] : undefined;
}

function list(o: Obj, camel: string, snake: string | undefined, where: string): Obj[] {
  const v = field(o, camel, snake);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new BeaconError('bad_data', `${where}.${camel} must be an array`);
  for (const item of v) if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new BeaconError('bad_data', `${where}.${camel} must hold objects`);
  return v as Obj[];
}

function obj(o: Obj, camel: string, snake: string | undefined, where: string): Obj | undefined {
  const v = field(o, camel, snake);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new BeaconError('bad_data', `${where}.${camel} must be an object`);
  return v as Obj;
}

function str(o: Obj, camel: string, snake: string | undefined, where: string): string {
  const v = field(o, camel, snake);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new BeaconError('bad_data', `${where}.${camel} must be a string`);
  return v;
}

export function decodeJsonTraces(body: Buffer): SpanRecord[] {
  const req = parseOtlpJson(body);
  const out: SpanRecord[] = [];
  for (const rs of list(req, 'resourceSpans', 'resource_spans', 'request')) {
    const res = obj(rs, 'resource', undefined, 'resourceSpans');
    const resource = res ? attributes(res, 'resource') : {};
    for (const ss of list(rs, 'scopeSpans', 'scope_spans', 'resourceSpans')) {
      const sc = obj(ss, 'scope', undefined, 'scopeSpans');
      const scope = { name: sc ? str(sc, 'name', undefined, 'scope') : '', version: sc ? str(sc, 'version', undefined, 'scope') : '' };
      for (const s of list(ss, 'spans', undefined, 'scopeSpans')) {
        const status = obj(s, 'status', undefined, 'span');
        out.push({
          traceId: hexId(field(s, 'traceId', 'trace_id'), 16, 'traceId'),
          spanId: hexId(field(s, 'spanId', 'span_id'), 8, 'spanId'),
          parentSpanId: hexId(field(s, 'parentSpanId', 'parent_span_id'), 8, 'parentSpanId'),
          name: str(s, 'name', undefined, 'span'),
          kind: enumValue(field(s, 'kind'), SPAN_KINDS, 'kind'),
          startTimeUnixNano: u64(field(s, 'startTimeUnixNano', 'start_time_unix_nano'), 'startTimeUnixNano'),
          endTimeUnixNano: u64(field(s, 'endTimeUnixNano', 'end_time_unix_nano'), 'endTimeUnixNano'),
          attributes: attributes(s, 'span'),
          status: {
            code: status ? enumValue(field(status, 'code'), STATUS_CODES, 'status.code') : 0,
            message: status ? str(status, 'message', undefined, 'status') : '',
          },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

const METRIC_TYPES = ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'];

export function countJsonMetrics(body: Buffer): number {
  const req = parseOtlpJson(body);
  let n = 0;
  for (const rm of list(req, 'resourceMetrics', 'resource_metrics', 'request')) {
    for (const sm of list(rm, 'scopeMetrics', 'scope_metrics', 'resourceMetrics')) {
      for (const m of list(sm, 'metrics', undefined, 'scopeMetrics')) {
        for (const t of METRIC_TYPES) {
          const data = obj(m, t, t === 'exponentialHistogram' ? 'exponential_histogram' : undefined, 'metric');
          if (data) n += list(data, 'dataPoints', 'data_points', t).length;
        }
      }
    }
  }
  return n;
}

export function countJsonLogs(body: Buffer): number {
  const req = parseOtlpJson(body);
  let n = 0;
  for (const rl of list(req, 'resourceLogs', 'resource_logs', 'request')) {
    for (const sl of list(rl, 'scopeLogs', 'scope_logs', 'resourceLogs')) {
      for (const r of list(sl, 'logRecords', 'log_records', 'scopeLogs')) {
        hexId(field(r, 'traceId', 'trace_id'), 16, 'traceId');
        hexId(field(r, 'spanId', 'span_id'), 8, 'spanId');
        n++;
      }
    }
  }
  return n;
}

/** Logs: every record, decoded (see decodeProtoLogs). */
export function decodeJsonLogs(body: Buffer): LogRecord[] {
  const req = parseOtlpJson(body);
  const out: LogRecord[] = [];
  for (const rl of list(req, 'resourceLogs', 'resource_logs', 'request')) {
    const res = obj(rl, 'resource', undefined, 'resourceLogs');
    const resource = res ? attributes(res, 'resource') : {};
    for (const sl of list(rl, 'scopeLogs', 'scope_logs', 'resourceLogs')) {
      const scope = scopeOf(sl, 'scopeLogs');
      for (const r of list(sl, 'logRecords', 'log_records', 'scopeLogs')) {
        const b = field(r, 'body');
        out.push({
          timeUnixNano: u64(field(r, 'timeUnixNano', 'time_unix_nano'), 'timeUnixNano'),
          observedTimeUnixNano: u64(field(r, 'observedTimeUnixNano', 'observed_time_unix_nano'), 'observedTimeUnixNano'),
          severityNumber: enumValue(field(r, 'severityNumber', 'severity_number'), SEVERITY_NUMBERS, 'severityNumber'),
          severityText: str(r, 'severityText', 'severity_text', 'logRecord'),
          body: b === undefined || b === null ? null : anyValue(b, 'body'),
          attributes: attributes(r, 'logRecord'),
          traceId: hexId(field(r, 'traceId', 'trace_id'), 16, 'traceId'),
          spanId: hexId(field(r, 'spanId', 'span_id'), 8, 'spanId'),
          eventName: str(r, 'eventName', 'event_name', 'logRecord'),
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

/** SEVERITY_NUMBER_UNSPECIFIED, then TRACE, TRACE2…4, DEBUG…, FATAL4: 1–24. */
const SEVERITY_NUMBERS = ['SEVERITY_NUMBER_UNSPECIFIED', ...['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'].flatMap((l) => ['', '2', '3', '4'].map((n) => `SEVERITY_NUMBER_${l}${n}`))];

const TEMPORALITIES = ['AGGREGATION_TEMPORALITY_UNSPECIFIED', 'AGGREGATION_TEMPORALITY_DELTA', 'AGGREGATION_TEMPORALITY_CUMULATIVE'];

/** Metrics: the number points of sums and gauges, and the count of every data point (see decodeProtoMetrics). */
export function decodeJsonMetrics(body: Buffer): { points: MetricPoint[]; dataPoints: number } {
  const req = parseOtlpJson(body);
  const points: MetricPoint[] = [];
  let dataPoints = 0;
  for (const rm of list(req, 'resourceMetrics', 'resource_metrics', 'request')) {
    const res = obj(rm, 'resource', undefined, 'resourceMetrics');
    const resource = res ? attributes(res, 'resource') : {};
    for (const sm of list(rm, 'scopeMetrics', 'scope_metrics', 'resourceMetrics')) {
      const scope = scopeOf(sm, 'scopeMetrics');
      for (const m of list(sm, 'metrics', undefined, 'scopeMetrics')) {
        for (const t of METRIC_TYPES) {
          const data = obj(m, t, t === 'exponentialHistogram' ? 'exponential_histogram' : undefined, 'metric');
          if (!data) continue;
          const dps = list(data, 'dataPoints', 'data_points', t);
          dataPoints += dps.length;
          if (t !== 'sum' && t !== 'gauge') continue;
          const temporality = t === 'sum' ? temporalityOf(enumValue(field(data, 'aggregationTemporality', 'aggregation_temporality'), TEMPORALITIES, 'aggregationTemporality')) : 'unspecified';
          const monotonic = t === 'sum' && field(data, 'isMonotonic', 'is_monotonic') === true;
          for (const p of dps) {
            const asInt = field(p, 'asInt', 'as_int');
            const asDouble = field(p, 'asDouble', 'as_double');
            const value = asInt !== undefined && asInt !== null ? int64(asInt, 'asInt') : asDouble !== undefined && asDouble !== null ? double(asDouble, 'asDouble') : undefined;
            if (value === undefined) continue;
            points.push({
              metric: str(m, 'name', undefined, 'metric'),
              unit: str(m, 'unit', undefined, 'metric'),
              kind: t,
              temporality,
              monotonic,
              startTimeUnixNano: u64(field(p, 'startTimeUnixNano', 'start_time_unix_nano'), 'startTimeUnixNano'),
              timeUnixNano: u64(field(p, 'timeUnixNano', 'time_unix_nano'), 'timeUnixNano'),
              value,
              attributes: attributes(p, 'dataPoint'),
              resource,
              scope,
            });
          }
        }
      }
    }
  }
  return { points, dataPoints };
}

function scopeOf(o: Obj, where: string): { name: string; version: string } {
  const sc = obj(o, 'scope', undefined, where);
  return { name: sc ? str(sc, 'name', undefined, 'scope') : '', version: sc ? str(sc, 'version', undefined, 'scope') : '' };
}

const SPAN_KINDS = ['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER', 'SPAN_KIND_CONSUMER'];
const STATUS_CODES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];

function enumValue(v: unknown, names: string[], what: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string') {
    const i = names.indexOf(v);
    if (i >= 0) return i;
    if (/^\d+$/.test(v)) return Number(v);
  }
  throw new BeaconError('bad_data', `${what}: unknown enum value ${JSON.stringify(v)}`);
}

const HEX = /^[0-9a-fA-F]*$/;

function hexId(v: unknown, bytes: number, what: string): string {
  if (v === undefined || v === null || v === '') return '';
  if (typeof v !== 'string' || !HEX.test(v) || v.length !== bytes * 2) {
    throw new BeaconError('bad_data', `${what} must be ${bytes * 2} hex digits, got ${JSON.stringify(v).slice(0, 60)}`);
  }
  return v.toLowerCase();
}

function u64(v: unknown, what: string): bigint {
  if (v === undefined || v === null || v === '') return 0n;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return BigInt(v);
  throw new BeaconError('bad_data', `${what} must be an unsigned 64-bit integer (number or decimal string), got ${JSON.stringify(String(v)).slice(0, 40)}`);
}

function attributes(o: Obj, where: string): Attributes {
  const out: Attributes = {};
  for (const kv of list(o, 'attributes', undefined, where)) {
    const key = kv.key;
    if (typeof key !== 'string') throw new BeaconError('bad_data', `${where}.attributes: key must be a string`);
    const value = kv.value;
    out[key] = value === undefined || value === null ? null : anyValue(value, key);
  }
  return out;
}

function anyValue(v: unknown, key: string): AttrValue {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BeaconError('bad_data', `attribute ${key}: value must be an AnyValue object`);
  const o = v as Obj;
  let x: unknown;
  if ((x = field(o, 'stringValue', 'string_value')) !== undefined) {
    if (typeof x !== 'string') throw new BeaconError('bad_data', `attribute ${key}: stringValue must be a string`);
    return x;
  }
  if ((x = field(o, 'intValue', 'int_value')) !== undefined) return int64(x, key);
  if ((x = field(o, 'boolValue', 'bool_value')) !== undefined) {
    if (typeof x !== 'boolean') throw new BeaconError('bad_data', `attribute ${key}: boolValue must be a boolean`);
    return x;
  }
  if ((x = field(o, 'doubleValue', 'double_value')) !== undefined) return double(x, key);
  if ((x = field(o, 'arrayValue', 'array_value')) !== undefined) {
    const values = (x as Obj | null)?.values ?? [];
    if (!Array.isArray(values)) throw new BeaconError('bad_data', `attribute ${key}: arrayValue.values must be an array`);
    return values.map((item) => anyValue(item, key));
  }
  if ((x = field(o, 'kvlistValue', 'kvlist_value')) !== undefined) {
    return attributes({ attributes: (x as Obj | null)?.values ?? [] }, `attribute ${key}`);
  }
  if ((x = field(o, 'bytesValue', 'bytes_value')) !== undefined) {
    if (typeof x !== 'string') throw new BeaconError('bad_data', `attribute ${key}: bytesValue must be base64`);
    return x;
  }
  return null;
}

function int64(x: unknown, key: string): number | string {
  if (typeof x === 'number' && Number.isInteger(x)) return x;
  if (typeof x === 'bigint') return x.toString();
  if (typeof x === 'string' && /^-?\d{1,20}$/.test(x)) {
    const n = Number(x);
    return Number.isSafeInteger(n) ? n : BigInt(x).toString();
  }
  throw new BeaconError('bad_data', `attribute ${key}: intValue must be an integer (number or decimal string)`);
}

function double(x: unknown, key: string): number | string {
  if (typeof x === 'number') return x;
  if (typeof x === 'bigint') return Number(x);
  if (x === 'NaN' || x === 'Infinity' || x === '-Infinity') return x;
  if (typeof x === 'string' && x.trim() !== '' && !Number.isNaN(Number(x))) return Number(x);
  throw new BeaconError('bad_data', `attribute ${key}: doubleValue must be a number`);
}
