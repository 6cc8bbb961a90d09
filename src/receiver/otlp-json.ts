import { parse as parseLossless } from 'lossless-json';
import { quoteInput } from '../model/quote-input';
import { BeaconError } from '../model/errors';
import type { Attributes } from '../model/span';
import { NESTED, doubleValue, exactInteger, int64Value, mapAttributes, uint64Value, type AnyValueReader, type KeyValueLike } from './any-value';

/**
 * OTLP/JSON, read the same way for every signal (each signal's own shape is in signals/): proto3 JSON with OTLP's rules — hex ids (any case), int64 as string or number, enums as
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
    // Not the parser's message: V8's quotes the input around the error.
    const at = /position (\d+)|\(char (\d+)\)/.exec((e as Error).message);
    throw new BeaconError('bad_data', `invalid JSON${at ? ` at position ${at[1] ?? at[2]}` : ''} (${body.length} bytes)`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BeaconError('bad_data', 'an OTLP/JSON request must be a JSON object');
  return v as Obj;
}

function parseNumber(s: string): number | bigint {
  const b = exactInteger(s);
  if (b === undefined) return Number(s);
  return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
}

export function field(o: Obj, camel: string, snake?: string): unknown {
  const v = o[camel];
  return v !== undefined ? v : snake !== undefined ? o[snake] : undefined;
}

export function list(o: Obj, camel: string, snake: string | undefined, where: string): Obj[] {
  const v = field(o, camel, snake);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new BeaconError('bad_data', `${where}.${camel} must be an array`);
  for (const item of v) if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new BeaconError('bad_data', `${where}.${camel} must hold objects`);
  return v as Obj[];
}

export function obj(o: Obj, camel: string, snake: string | undefined, where: string): Obj | undefined {
  const v = field(o, camel, snake);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw new BeaconError('bad_data', `${where}.${camel} must be an object`);
  return v as Obj;
}

export function str(o: Obj, camel: string, snake: string | undefined, where: string): string {
  const v = field(o, camel, snake);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new BeaconError('bad_data', `${where}.${camel} must be a string`);
  return v;
}

export function scopeOf(o: Obj, where: string): { name: string; version: string } {
  const sc = obj(o, 'scope', undefined, where);
  return { name: sc ? str(sc, 'name', undefined, 'scope') : '', version: sc ? str(sc, 'version', undefined, 'scope') : '' };
}

export function enumValue(v: unknown, names: string[], what: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string') {
    const i = names.indexOf(v);
    if (i >= 0) return i;
    if (/^\d+$/.test(v)) return Number(v);
  }
  throw new BeaconError('bad_data', `${what}: unknown enum value ${quoteInput(v)}`);
}

const HEX = /^[0-9a-fA-F]*$/;

export function hexId(v: unknown, bytes: number, what: string): string {
  if (v === undefined || v === null || v === '') return '';
  if (typeof v !== 'string' || !HEX.test(v) || v.length !== bytes * 2) {
    throw new BeaconError('bad_data', `${what} must be ${bytes * 2} hex digits, got ${quoteInput(v)}`);
  }
  return v.toLowerCase();
}

export function u64(v: unknown, what: string): bigint {
  if (v === undefined || v === null || v === '') return 0n;
  return uint64Value(jsonInteger(v, what), what);
}

export function resourceAttributes(o: Obj): Attributes {
  const res = obj(o, 'resource', undefined, 'resource');
  return res ? attributes(res, 'resource') : {};
}

export function attributes(o: Obj, where: string): Attributes {
  return mapAttributes(list(o, 'attributes', undefined, where) as unknown as KeyValueLike<unknown>[], JSON_ANY_VALUE, where);
}

/** OTLP/JSON's AnyValue: camelCase or snake_case keys, int64 as number or string, bytes as base64. */
export const JSON_ANY_VALUE: AnyValueReader<unknown> = {
  key(k, where) {
    if (k === undefined || k === null) return '';
    if (typeof k !== 'string') throw new BeaconError('bad_data', `${where}: key must be a string`);
    return k;
  },
  scalar(v, key) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BeaconError('bad_data', `attribute ${quoteInput(key, 40)}: value must be an AnyValue object`);
    const o = v as Obj;
    let x: unknown;
    if ((x = field(o, 'stringValue', 'string_value')) !== undefined) {
      if (typeof x !== 'string') throw new BeaconError('bad_data', `attribute ${quoteInput(key, 40)}: stringValue must be a string`);
      return x;
    }
    if ((x = field(o, 'intValue', 'int_value')) !== undefined) {
      const what = () => `attribute ${quoteInput(key, 40)}: intValue`;
      return int64Value(jsonInteger(x, what), what);
    }
    if ((x = field(o, 'boolValue', 'bool_value')) !== undefined) {
      if (typeof x !== 'boolean') throw new BeaconError('bad_data', `attribute ${quoteInput(key, 40)}: boolValue must be a boolean`);
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
    for (const kv of items) if (typeof kv !== 'object' || kv === null || Array.isArray(kv)) throw new BeaconError('bad_data', `attribute ${quoteInput(key, 40)}: kvlistValue.values must hold objects`);
    return items as KeyValueLike<unknown>[];
  },
};

function container(x: unknown, key: string, what: string): unknown[] {
  if (x === null) return [];
  if (typeof x !== 'object' || Array.isArray(x)) throw new BeaconError('bad_data', `attribute ${quoteInput(key, 40)}: ${what} must be an object`);
  const values = (x as Obj).values ?? [];
  if (!Array.isArray(values)) throw new BeaconError('bad_data', `attribute ${quoteInput(key, 40)}: ${what}.values must be an array`);
  return values;
}

/** An integer field: a JSON number, or a decimal string; exponent notation is accepted (proto3 JSON). */
export function jsonInteger(x: unknown, whatOf: string | (() => string)): bigint {
  if (typeof x === 'bigint') return x;
  if (typeof x === 'number' && Number.isSafeInteger(x)) return BigInt(x);
  if (typeof x === 'string') {
    const b = exactInteger(x.trim());
    if (b !== undefined) return b;
  }
  // A number beyond 2^53 reaching here was written in a form the exact parser could not read
  // (e.g. 1e30, out of any 64-bit range): refuse it rather than guess.
  const shown = quoteInput(x);
  const what = typeof whatOf === 'function' ? whatOf() : whatOf;
  if (typeof x === 'number' && Number.isInteger(x)) throw new BeaconError('bad_data', `${what} ${shown} is outside the 64-bit integer range`);
  throw new BeaconError('bad_data', `${what} must be an integer (number or decimal string), got ${shown}`);
}

export function double(x: unknown, key: string): number | string {
  if (typeof x === 'number') return doubleValue(x);
  if (typeof x === 'bigint') return doubleValue(Number(x));
  if (x === 'NaN' || x === 'Infinity' || x === '-Infinity') return x;
  if (typeof x === 'string' && x.trim() !== '' && !Number.isNaN(Number(x))) return doubleValue(Number(x));
  throw new BeaconError('bad_data', `attribute ${quoteInput(key, 40)}: doubleValue must be a number`);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** proto3 JSON bytes: standard base64 with padding, as the Collector reads it; kept as that string. */
function base64(x: unknown, key: string): string {
  if (typeof x !== 'string' || !BASE64.test(x)) throw new BeaconError('bad_data', `attribute ${quoteInput(key, 40)}: bytesValue must be standard base64`);
  return x;
}

/** A `[camelCase, snake_case]` key pair: OTLP/JSON accepts either spelling. */
export type JsonKey = readonly [string, string];

/** The items of one kind in a parsed request, lenient: a malformed shape yields nothing here and is refused by the decoder. */
export function jsonItems(o: unknown, [camel, snake]: JsonKey): unknown[] {
  if (typeof o !== 'object' || o === null) return [];
  const v = (o as Obj)[camel] ?? (o as Obj)[snake];
  return Array.isArray(v) ? v : [];
}

/**
 * Items under `resource → scope → item` (spans, log records, metrics), counted before anything is
 * mapped (the per-export limit). `each` counts what one item holds (a metric's data points); 1 by default.
 */
export function countJsonItems(req: Obj, [resources, scopes, items]: readonly [JsonKey, JsonKey, JsonKey], each: (item: unknown) => number = () => 1): number {
  let n = 0;
  for (const res of jsonItems(req, resources)) for (const scope of jsonItems(res, scopes)) for (const item of jsonItems(scope, items)) n += each(item);
  return n;
}
