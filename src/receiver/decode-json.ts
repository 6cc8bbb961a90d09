import { parse as parseLossless } from 'lossless-json';
import { BeaconError } from '../model/errors';
import { temporalityOf, type LogRecord, type MetricPoint } from '../model/otlp-signals';
import type { Signal } from './signals';
import type { Attributes, SpanRecord } from '../model/span';
import { NESTED, mapAnyValue, doubleValue, exactInteger, int64Value, mapAttributes, uint64Value, type AnyValueReader, type KeyValueLike } from './any-value';

/**
 * OTLP/JSON: proto3 JSON with OTLP's rules — hex ids (any case), int64 as string or number, enums as
 * integers (names accepted too, as the Collector does), unknown fields ignored. snake_case keys are
 * accepted as well. No precision is lost on integers above 2^53.
 */
export type Obj = Record<string, unknown>;

/**
 * A bare integer literal of 16+ digits may exceed 2^53, and an exponent-form number may denote an
 * integer Number() would round: only then is the slower lossless parser used.
 */
const MAYBE_INEXACT_NUMBER = /[:[,]\s*-?(?:\d{16,}|\d+(?:\.\d+)?[eE])/;

export function parseOtlpJson(body: Buffer): Obj {
  const text = body.toString('utf8');
  let v: unknown;
  try {
    v = MAYBE_INEXACT_NUMBER.test(text) ? parseLossless(text, null, parseNumber) : JSON.parse(text);
  } catch (e) {
    throw new BeaconError('bad_data', `invalid JSON: ${(e as Error).message}`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BeaconError('bad_data', 'an OTLP/JSON request must be a JSON object');
  return v as Obj;
}

function parseNumber(s: string): number | bigint {
  const b = exactInteger(s);
  if (b === undefined) return Number(s);
  return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
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

export function decodeJsonTraces(body: Buffer | Obj): SpanRecord[] {
  const req = Buffer.isBuffer(body) ? parseOtlpJson(body) : body;
  const out: SpanRecord[] = [];
  for (const rs of list(req, 'resourceSpans', 'resource_spans', 'request')) {
    const resource = resourceAttributes(rs);
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

/**
 * Spans, data points or log records in a parsed request, counted before anything is mapped (the
 * per-export limit). Lenient: a malformed shape counts 0 here and is refused by the decoder.
 */
export function countJsonItems(signal: Signal, req: Obj): number {
  const arr = (o: unknown, camel: string, snake: string): unknown[] => {
    if (typeof o !== 'object' || o === null) return [];
    const v = (o as Obj)[camel] ?? (o as Obj)[snake];
    return Array.isArray(v) ? v : [];
  };
  const [r, s, items] = JSON_PATHS[signal];
  let n = 0;
  for (const res of arr(req, ...r)) {
    for (const scope of arr(res, ...s)) {
      if (signal !== 'metrics') n += arr(scope, ...items).length;
      else for (const m of arr(scope, ...items)) for (const t of METRIC_TYPES) n += arr((m as Obj)[t] ?? (m as Obj)[t === 'exponentialHistogram' ? 'exponential_histogram' : t], 'dataPoints', 'data_points').length;
    }
  }
  return n;
}

const JSON_PATHS: Record<Signal, [[string, string], [string, string], [string, string]]> = {
  traces: [['resourceSpans', 'resource_spans'], ['scopeSpans', 'scope_spans'], ['spans', 'spans']],
  metrics: [['resourceMetrics', 'resource_metrics'], ['scopeMetrics', 'scope_metrics'], ['metrics', 'metrics']],
  logs: [['resourceLogs', 'resource_logs'], ['scopeLogs', 'scope_logs'], ['logRecords', 'log_records']],
};

const METRIC_TYPES = ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'];

/** Logs: every record, decoded (see decodeProtoLogs). */
export function decodeJsonLogs(body: Buffer | Obj): LogRecord[] {
  const req = Buffer.isBuffer(body) ? parseOtlpJson(body) : body;
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
          body: b === undefined || b === null ? null : mapAnyValue(b, JSON_ANY_VALUE, 'body', 0),
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
export function decodeJsonMetrics(body: Buffer | Obj): { points: MetricPoint[]; dataPoints: number } {
  const req = Buffer.isBuffer(body) ? parseOtlpJson(body) : body;
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
            const value = asInt !== undefined && asInt !== null ? int64Value(jsonInteger(asInt, 'asInt'), 'asInt') : asDouble !== undefined && asDouble !== null ? double(asDouble, 'asDouble') : undefined;
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
  return uint64Value(jsonInteger(v, what), what);
}

function resourceAttributes(o: Obj): Attributes {
  const res = obj(o, 'resource', undefined, 'resource');
  return res ? attributes(res, 'resource') : {};
}

function attributes(o: Obj, where: string): Attributes {
  return mapAttributes(list(o, 'attributes', undefined, where) as unknown as KeyValueLike<unknown>[], JSON_ANY_VALUE, where);
}

/** OTLP/JSON's AnyValue: camelCase or snake_case keys, int64 as number or string, bytes as base64. */
const JSON_ANY_VALUE: AnyValueReader<unknown> = {
  key(k, where) {
    if (k === undefined || k === null) return '';
    if (typeof k !== 'string') throw new BeaconError('bad_data', `${where}: key must be a string`);
    return k;
  },
  scalar(v, key) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BeaconError('bad_data', `attribute ${key}: value must be an AnyValue object`);
    const o = v as Obj;
    let x: unknown;
    if ((x = field(o, 'stringValue', 'string_value')) !== undefined) {
      if (typeof x !== 'string') throw new BeaconError('bad_data', `attribute ${key}: stringValue must be a string`);
      return x;
    }
    if ((x = field(o, 'intValue', 'int_value')) !== undefined) return int64Value(jsonInteger(x, `attribute ${key}: intValue`), `attribute ${key}: intValue`);
    if ((x = field(o, 'boolValue', 'bool_value')) !== undefined) {
      if (typeof x !== 'boolean') throw new BeaconError('bad_data', `attribute ${key}: boolValue must be a boolean`);
      return x;
    }
    if ((x = field(o, 'doubleValue', 'double_value')) !== undefined) return double(x, key);
    if (field(o, 'arrayValue', 'array_value') !== undefined || field(o, 'kvlistValue', 'kvlist_value') !== undefined) return NESTED;
    if ((x = field(o, 'bytesValue', 'bytes_value')) !== undefined) return base64(x, key);
    return null;
  },
  arrayItems(v, key) {
    const x = field(v as Obj, 'arrayValue', 'array_value');
    if (x === undefined) return undefined;
    return container(x, key, 'arrayValue');
  },
  kvlistItems(v, key) {
    const items = container(field(v as Obj, 'kvlistValue', 'kvlist_value'), key, 'kvlistValue');
    for (const kv of items) if (typeof kv !== 'object' || kv === null || Array.isArray(kv)) throw new BeaconError('bad_data', `attribute ${key}: kvlistValue.values must hold objects`);
    return items as KeyValueLike<unknown>[];
  },
};

function container(x: unknown, key: string, what: string): unknown[] {
  if (x === null) return [];
  if (typeof x !== 'object' || Array.isArray(x)) throw new BeaconError('bad_data', `attribute ${key}: ${what} must be an object`);
  const values = (x as Obj).values ?? [];
  if (!Array.isArray(values)) throw new BeaconError('bad_data', `attribute ${key}: ${what}.values must be an array`);
  return values;
}

/** An integer field: a JSON number, or a decimal string; exponent notation is accepted (proto3 JSON). */
function jsonInteger(x: unknown, what: string): bigint {
  if (typeof x === 'bigint') return x;
  if (typeof x === 'number' && Number.isSafeInteger(x)) return BigInt(x);
  if (typeof x === 'string') {
    const b = exactInteger(x.trim());
    if (b !== undefined) return b;
  }
  // A number beyond 2^53 reaching here was written in a form the exact parser could not read
  // (e.g. 1e30, out of any 64-bit range): refuse it rather than guess.
  const shown = typeof x === 'string' ? JSON.stringify(x.slice(0, 40)) : String(x).slice(0, 40);
  if (typeof x === 'number' && Number.isInteger(x)) throw new BeaconError('bad_data', `${what} ${shown} is outside the 64-bit integer range`);
  throw new BeaconError('bad_data', `${what} must be an integer (number or decimal string), got ${shown}`);
}

function double(x: unknown, key: string): number | string {
  if (typeof x === 'number') return doubleValue(x);
  if (typeof x === 'bigint') return doubleValue(Number(x));
  if (x === 'NaN' || x === 'Infinity' || x === '-Infinity') return x;
  if (typeof x === 'string' && x.trim() !== '' && !Number.isNaN(Number(x))) return doubleValue(Number(x));
  throw new BeaconError('bad_data', `attribute ${key}: doubleValue must be a number`);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** proto3 JSON bytes: standard base64 with padding, as the Collector reads it; kept as that string. */
function base64(x: unknown, key: string): string {
  if (typeof x !== 'string' || !BASE64.test(x)) throw new BeaconError('bad_data', `attribute ${key}: bytesValue must be standard base64`);
  return x;
}
