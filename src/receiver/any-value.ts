import { quoteInput } from '../model/quote-input';
import { BeaconError } from '../model/errors';
import type { AttrValue, Attributes } from '../model/span';

/**
 * The one OTLP AnyValue → attribute mapper, shared by the protobuf and the JSON decoder. Each
 * decoder supplies a reader for its own representation (protobufjs messages, parsed JSON); every
 * rule about what a value becomes lives here, so the two encodings of one span give one record:
 * the depth limit, int64 range, NaN/Infinity, empty and hostile keys, empty values.
 */

/**
 * How many arrayValue/kvlistValue levels may enclose a value. goose sends no arrays at all (lists
 * are JSON strings); structured GenAI messages nest about 5 deep. The bound keeps every later stage
 * (extraction, redaction, JSON serialization) far from the stack limit — 3,000 levels crashed them.
 * It is also below protobufjs' own message recursion limit (100) for every place an attribute sits.
 */
export const MAX_ANY_VALUE_DEPTH = 16;

/** protobufjs stops at 100 nested messages, as protoc does; the error says which limit was hit. */
export function protobufDepthError(typeName: string, recursionLimit: number): BeaconError {
  return new BeaconError('bad_data', `invalid protobuf ${typeName}: messages nested deeper than ${recursionLimit} levels (the protobuf limit; AnyValue values may nest ${MAX_ANY_VALUE_DEPTH} levels)`);
}

export interface KeyValueLike<V> {
  key: unknown;
  value: V | null | undefined;
}

/** Reads one encoding's AnyValue: a scalar already in Beacon's form, or the items of a container. */
export interface AnyValueReader<V> {
  /** the value when it is a scalar (or empty: null); NESTED when it is an array or kvlist */
  scalar(v: V, key: string): AttrValue | typeof NESTED;
  /** the items when `v` is an arrayValue, else undefined */
  arrayItems(v: V, key: string): readonly V[] | undefined;
  /** the entries when `v` is a kvlistValue, else undefined */
  kvlistItems(v: V, key: string): readonly KeyValueLike<V>[] | undefined;
  /** a KeyValue's key as a string ('' when absent) */
  key(k: unknown, where: string): string;
}

export const NESTED: unique symbol = Symbol('nested AnyValue');

export function mapAttributes<V>(kvs: readonly KeyValueLike<V>[] | undefined, reader: AnyValueReader<V>, where = 'attributes', depth = 0): Attributes {
  const out: Attributes = {};
  if (!kvs) return out;
  for (const kv of kvs) {
    const key = reader.key(kv.key, where);
    const value = kv.value === undefined || kv.value === null ? null : mapAnyValue(kv.value, reader, key, depth);
    // A key named __proto__ is data, not the object's prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  return out;
}

export function mapAnyValue<V>(v: V, reader: AnyValueReader<V>, key: string, depth: number): AttrValue {
  const s = reader.scalar(v, key);
  if (s !== NESTED) return s;
  if (depth >= MAX_ANY_VALUE_DEPTH) {
    throw new BeaconError('bad_data', `attribute ${quoteInput(key, 40)}: AnyValue nested deeper than ${MAX_ANY_VALUE_DEPTH} levels (the limit)`);
  }
  const items = reader.arrayItems(v, key);
  if (items !== undefined) {
    const out: AttrValue[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      out[i] = item === undefined || item === null ? null : mapAnyValue(item, reader, key, depth + 1);
    }
    return out;
  }
  return mapAttributes(reader.kvlistItems(v, key) ?? [], reader, `attribute ${quoteInput(key, 40)}`, depth + 1);
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** int64 as Beacon keeps it: a number when exact, the decimal string beyond 2^53 (never rounded). */
/** `what` names the field for the error; a function, so a hot path builds the text only when it fails. */
export function int64Value(b: bigint, what: string | (() => string)): number | string {
  if (b < INT64_MIN || b > INT64_MAX) throw new BeaconError('bad_data', `${typeof what === 'function' ? what() : what} is outside the int64 range`);
  return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b.toString();
}

export function uint64Value(b: bigint, what: string): bigint {
  if (b < 0n || b > UINT64_MAX) throw new BeaconError('bad_data', `${what} is outside the uint64 range`);
  return b;
}

/** doubles: NaN and ±Infinity have no JSON number, so both encodings keep proto3 JSON's names for them. */
export function doubleValue(n: number): number | string {
  if (Number.isFinite(n)) return n;
  return Number.isNaN(n) ? 'NaN' : n > 0 ? 'Infinity' : '-Infinity';
}

const NUMBER_LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * The exact integer a decimal literal denotes (`12`, `-7`, `1e3`, `1.5E2`), or undefined when it is
 * not an integer or has more than 25 digits (beyond any 64-bit value: the caller reports the range).
 * proto3 JSON accepts exponent notation for integers; Number() would round past 2^53.
 */
export function exactInteger(literal: string): bigint | undefined {
  const m = NUMBER_LITERAL.exec(literal);
  if (!m) return undefined;
  const [, sign, int, frac = '', e = '0'] = m;
  let digits = (int! + frac).replace(/^0+(?=\d)/, '');
  let exp = Number(e) - frac.length;
  if (!Number.isSafeInteger(exp)) return undefined;
  while (exp < 0 && digits.length > 1 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exp++;
  }
  if (/^0+$/.test(digits)) return 0n;
  if (exp < 0 || digits.length + exp > 25) return undefined;
  const b = BigInt(digits) * 10n ** BigInt(exp);
  return sign === '-' ? -b : b;
}
