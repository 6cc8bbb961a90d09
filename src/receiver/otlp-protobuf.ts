/** OTLP/protobuf, read the same way for every signal (each signal's own messages are mapped in signals/). */
import { BeaconError } from '../model/errors';
import { quoteInput } from '../model/quote-input';
import type { Attributes } from '../model/span';
import { NESTED, protobufDepthError, doubleValue, int64Value, mapAttributes, type AnyValueReader, type KeyValueLike } from './any-value';
import protobuf from 'protobufjs';

/** protobufjs' representation of 64-bit integers (the `long` package). */
interface LongLike {
  low: number;
  high: number;
  unsigned: boolean;
}

export type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** One export request of the signal's `type`; what protobufjs cannot read is bad data (400). */
export function decodeRequest(type: protobuf.Type, body: Buffer): Msg {
  try {
    return type.decode(body) as unknown as Msg;
  } catch (e) {
    const why = (e as Error).message;
    if (why === 'max depth exceeded') throw protobufDepthError(type.name, protobuf.util.recursionLimit);
    throw new BeaconError('bad_data', `invalid protobuf ${type.name}: ${why}`);
  }
}

/** Ids are fixed-length bytes; empty means absent. Any other length is invalid data (as the Collector rules). */
export function id(bytes: Uint8Array | undefined, length: number, field: string): string {
  if (!bytes || bytes.length === 0) return '';
  if (bytes.length !== length) throw new BeaconError('bad_data', `${field} must be ${length} bytes, got ${bytes.length}`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export function u64(v: LongLike | number | undefined): bigint {
  if (v === undefined || v === null) return 0n;
  if (typeof v === 'number') return BigInt(v);
  return (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
}

export function i64(v: LongLike | number): bigint {
  if (typeof v === 'number') return BigInt(v);
  return BigInt.asIntN(64, (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0));
}

export function attributes(kvs: Msg[] | undefined, where = 'attributes'): Attributes {
  return mapAttributes(kvs as KeyValueLike<Msg>[] | undefined, PROTO_ANY_VALUE, where);
}

/** protobufjs' AnyValue: the set oneof member is an own property. */
export const PROTO_ANY_VALUE: AnyValueReader<Msg> = {
  key: (k) => (typeof k === 'string' ? k : ''),
  scalar(v, key) {
    // Own-property checks: the protobufjs oneof getter is twice as slow on this hot path.
    if (own(v, 'stringValue')) return v.stringValue;
    if (own(v, 'intValue')) return int64Value(i64(v.intValue), () => `attribute ${quoteInput(key, 40)}: intValue`);
    if (own(v, 'boolValue')) return v.boolValue;
    if (own(v, 'doubleValue')) return doubleValue(v.doubleValue);
    if (own(v, 'arrayValue') || own(v, 'kvlistValue')) return NESTED;
    if (own(v, 'bytesValue')) return Buffer.from(v.bytesValue).toString('base64');
    return null;
  },
  arrayItems: (v) => (own(v, 'arrayValue') ? ((v.arrayValue?.values ?? []) as Msg[]) : undefined),
  kvlistItems: (v) => (v.kvlistValue?.values ?? []) as KeyValueLike<Msg>[],
};
