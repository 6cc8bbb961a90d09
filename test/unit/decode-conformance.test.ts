import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import protobuf from 'protobufjs';
import { MAX_ANY_VALUE_DEPTH } from '../../src/receiver/any-value';
import { decodeJsonLogs, decodeProtoLogs } from '../../src/receiver/signals/logs';
import { decodeJsonMetrics, decodeProtoMetrics } from '../../src/receiver/signals/metrics';
import { decodeJsonTraces, decodeProtoTraces } from '../../src/receiver/signals/traces';
import { BeaconError } from '../../src/model/errors';
import { repoRoot } from '../helpers/paths';

/**
 * Both decoders are fed the same edge cases, each encoded once as OTLP/JSON text (written by hand,
 * so bare numbers keep their literal form) and once as protobuf (encoded by protobufjs from the same
 * values), and must give the same span records — or both refuse the export as bad data.
 */
const root = protobuf.loadSync(join(repoRoot(), 'proto', 'otlp.proto'));
const TraceRequest = root.lookupType('beacon.otlp.ExportTraceServiceRequest');
const MetricsRequest = root.lookupType('beacon.otlp.ExportMetricsServiceRequest');
const AnyValue = root.lookupType('beacon.otlp.AnyValue');
/** a length-delimited protobuf field, written by hand */
function ld(field: number, bytes: Buffer): Buffer {
  const len: number[] = [];
  let n = bytes.length;
  do {
    len.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n >>>= 7;
  } while (n > 0);
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...len]), bytes]);
}
const Long = protobuf.util.Long as unknown as { fromString(s: string): object };

/** A JSON value whose text is written verbatim (a bare number literal such as 1e3 or 9007199254740993). */
const RAW: string[] = [];
const raw = (text: string) => `@@RAW:${RAW.push(text) - 1}@@`;
const jsonText = (v: unknown) => JSON.stringify(v).replace(/"@@RAW:(\d+)@@"/g, (_, i) => RAW[Number(i)]!);

interface Case {
  name: string;
  json: unknown; // the JSON AnyValue
  proto: unknown; // the same AnyValue for protobufjs.fromObject
  expect?: unknown; // the attribute value both must give; omitted when both must refuse
  refuse?: RegExp;
}

const nest = (depth: number, leaf: { json: unknown; proto: unknown }, kind: 'array' | 'kvlist') => {
  // Both built as bytes: JSON.stringify and protobufjs' fromObject themselves stop far short of 3,000 levels.
  let j = JSON.stringify(leaf.json);
  if (depth <= 20) {
    let o = leaf.proto;
    for (let i = 0; i < depth; i++) o = kind === 'array' ? { arrayValue: { values: [o] } } : { kvlistValue: { values: [{ key: 'k', value: o }] } };
    for (let i = 0; i < depth; i++) j = kind === 'array' ? `{"arrayValue":{"values":[${j}]}}` : `{"kvlistValue":{"values":[{"key":"k","value":${j}}]}}`;
    return { json: raw(j), proto: o };
  }
  let p: Buffer = Buffer.from(AnyValue.encode(AnyValue.fromObject(leaf.proto as object)).finish());
  for (let i = 0; i < depth; i++) {
    if (kind === 'array') {
      j = `{"arrayValue":{"values":[${j}]}}`;
      p = ld(5, ld(1, p));
    } else {
      j = `{"kvlistValue":{"values":[{"key":"k","value":${j}}]}}`;
      p = ld(6, ld(1, Buffer.concat([ld(1, Buffer.from('k')), ld(2, p)])));
    }
  }
  return { json: raw(j), proto: p };
};
/** nested arrays as plain objects, for protobufjs.fromObject and JSON.stringify (shallow enough for both) */
const nestedProto = (depth: number): unknown => (depth === 0 ? { stringValue: 'x' } : { arrayValue: { values: [nestedProto(depth - 1)] } });
const nestedJson = nestedProto;
const expectNested = (depth: number, leaf: unknown, kind: 'array' | 'kvlist') => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { k: v };
  return v;
};

const leaf = { json: { stringValue: 'x' }, proto: { stringValue: 'x' } };
const CASES: Case[] = [
  { name: 'string', json: { stringValue: 'héllo' }, proto: { stringValue: 'héllo' }, expect: 'héllo' },
  { name: 'NaN', json: { doubleValue: 'NaN' }, proto: { doubleValue: NaN }, expect: 'NaN' },
  { name: 'Infinity', json: { doubleValue: 'Infinity' }, proto: { doubleValue: Infinity }, expect: 'Infinity' },
  { name: '-Infinity', json: { doubleValue: '-Infinity' }, proto: { doubleValue: -Infinity }, expect: '-Infinity' },
  { name: 'a double overflowing to Infinity', json: { doubleValue: raw('1e400') }, proto: { doubleValue: Infinity }, expect: 'Infinity' },
  { name: 'double in exponent form', json: { doubleValue: raw('1.5e-7') }, proto: { doubleValue: 1.5e-7 }, expect: 1.5e-7 },
  { name: '2^53+1 as a bare number', json: { intValue: raw('9007199254740993') }, proto: { intValue: Long.fromString('9007199254740993') }, expect: '9007199254740993' },
  { name: '2^53+1 as a string', json: { intValue: '9007199254740993' }, proto: { intValue: Long.fromString('9007199254740993') }, expect: '9007199254740993' },
  { name: '-(2^53+1)', json: { intValue: raw('-9007199254740993') }, proto: { intValue: Long.fromString('-9007199254740993') }, expect: '-9007199254740993' },
  { name: 'int64 min', json: { intValue: '-9223372036854775808' }, proto: { intValue: Long.fromString('-9223372036854775808') }, expect: '-9223372036854775808' },
  { name: 'int64 max', json: { intValue: raw('9223372036854775807') }, proto: { intValue: Long.fromString('9223372036854775807') }, expect: '9223372036854775807' },
  { name: 'integer in exponent form (number)', json: { intValue: raw('1e3') }, proto: { intValue: 1000 }, expect: 1000 },
  { name: 'integer in exponent form (string)', json: { intValue: '1.5E3' }, proto: { intValue: 1500 }, expect: 1500 },
  { name: 'exponent form beyond 2^53, exactly', json: { intValue: raw('9.007199254740993e15') }, proto: { intValue: Long.fromString('9007199254740993') }, expect: '9007199254740993' },
  { name: 'bytes', json: { bytesValue: 'AQID' }, proto: { bytesValue: Buffer.from([1, 2, 3]) }, expect: 'AQID' },
  { name: 'empty AnyValue', json: {}, proto: {}, expect: null },
  { name: 'bool', json: { boolValue: false }, proto: { boolValue: false }, expect: false },
  { name: 'empty array and kvlist', json: { arrayValue: { values: [{ kvlistValue: {} }] } }, proto: { arrayValue: { values: [{ kvlistValue: {} }] } }, expect: [{}] },
  { name: `nested ${MAX_ANY_VALUE_DEPTH} arrays (the limit)`, ...nest(MAX_ANY_VALUE_DEPTH, leaf, 'array'), expect: expectNested(MAX_ANY_VALUE_DEPTH, 'x', 'array') },
  { name: `nested ${MAX_ANY_VALUE_DEPTH} kvlists (the limit)`, ...nest(MAX_ANY_VALUE_DEPTH, leaf, 'kvlist'), expect: expectNested(MAX_ANY_VALUE_DEPTH, 'x', 'kvlist') },
  { name: `nested ${MAX_ANY_VALUE_DEPTH + 1} arrays`, ...nest(MAX_ANY_VALUE_DEPTH + 1, leaf, 'array'), refuse: new RegExp(`nested deeper than ${MAX_ANY_VALUE_DEPTH} levels`) },
  { name: `nested ${MAX_ANY_VALUE_DEPTH + 1} kvlists`, ...nest(MAX_ANY_VALUE_DEPTH + 1, leaf, 'kvlist'), refuse: new RegExp(`nested deeper than ${MAX_ANY_VALUE_DEPTH} levels`) },
  { name: 'nested 3,000 kvlists', ...nest(3000, leaf, 'kvlist'), refuse: /nested deeper than \d+ levels/ },
  { name: 'nested 3,000 arrays', ...nest(3000, leaf, 'array'), refuse: /nested deeper than \d+ levels/ },
];

function span(attrs: { key: string; value: unknown }[]) {
  return { traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 's', kind: 1, startTimeUnixNano: '1787301000000000000', endTimeUnixNano: '1787301001000000000', attributes: attrs };
}
function jsonBody(attrs: { key: string; value: unknown }[], resourceAttrs: { key: string; value: unknown }[] = []) {
  return Buffer.from(jsonText({ resourceSpans: [{ resource: { attributes: resourceAttrs }, scopeSpans: [{ scope: { name: 'goose' }, spans: [span(attrs)] }] }] }));
}
function protoBody(attrs: { key: string; value: unknown }[], resourceAttrs: { key: string; value: unknown }[] = []) {
  // A value given as bytes is spliced in by hand (see nest), beside an otherwise protobufjs-encoded request.
  const wire = [...attrs, ...resourceAttrs].find((a) => Buffer.isBuffer(a.value));
  if (wire) {
    const kv = Buffer.concat([ld(1, Buffer.from(wire.key)), ld(2, wire.value as Buffer)]);
    const inSpan = attrs.includes(wire);
    const resourceSpans = inSpan ? ld(2, ld(2, ld(9, kv))) : Buffer.concat([ld(1, ld(1, kv)), ld(2, ld(2, Buffer.alloc(0)))]);
    return ld(1, resourceSpans);
  }
  const s = span(attrs);
  const msg = TraceRequest.fromObject({
    resourceSpans: [{ resource: { attributes: resourceAttrs }, scopeSpans: [{ scope: { name: 'goose' }, spans: [{ ...s, traceId: Buffer.from(s.traceId, 'hex'), spanId: Buffer.from(s.spanId, 'hex') }] }] }],
  });
  return Buffer.from(TraceRequest.encode(msg).finish());
}

const badData = (re?: RegExp) => (e: unknown) => e instanceof BeaconError && e.code === 'bad_data' && (!re || re.test(e.message));

describe('decoder conformance: protobuf and JSON give the same records', () => {
  for (const c of CASES) {
    it(c.name, () => {
      for (const where of ['span', 'resource'] as const) {
        const j = where === 'span' ? jsonBody([{ key: 'v', value: c.json }]) : jsonBody([], [{ key: 'v', value: c.json }]);
        const p = where === 'span' ? protoBody([{ key: 'v', value: c.proto }]) : protoBody([], [{ key: 'v', value: c.proto }]);
        if (c.refuse) {
          assert.throws(() => decodeJsonTraces(j), badData(c.refuse), `JSON, ${where}`);
          assert.throws(() => decodeProtoTraces(p), badData(c.refuse), `protobuf, ${where}`);
          continue;
        }
        const fromJson = decodeJsonTraces(j);
        const fromProto = decodeProtoTraces(p);
        assert.deepEqual(fromJson, fromProto, where);
        assert.deepEqual((where === 'span' ? fromJson[0]!.attributes : fromJson[0]!.resource).v, c.expect, where);
      }
    });
  }

  it('empty and hostile keys: kept as data, in both', () => {
    const attrs = [
      { key: '', value: { stringValue: 'empty key' } },
      { key: '__proto__', value: { kvlistValue: { values: [{ key: 'polluted', value: { boolValue: true } }] } } },
      { key: 'constructor', value: { intValue: '1' } },
      { key: 'dup', value: { stringValue: 'first' } },
      { key: 'dup', value: { stringValue: 'last' } },
      { key: 'novalue' },
    ] as { key: string; value: unknown }[];
    const [j] = decodeJsonTraces(jsonBody(attrs));
    const [p] = decodeProtoTraces(protoBody(attrs));
    assert.deepEqual(j, p);
    assert.equal(j!.attributes[''], 'empty key');
    assert.equal(Object.getPrototypeOf(j!.attributes), Object.prototype, 'the prototype is untouched');
    assert.deepEqual(JSON.parse(JSON.stringify(j!.attributes)), JSON.parse('{"":"empty key","__proto__":{"polluted":true},"constructor":1,"dup":"last","novalue":null}'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('u64 and int64 overflow are bad data, never a 500 later (1e30, 2^64, 2^63)', () => {
    const withTime = (t: string) => Buffer.from(jsonText({ resourceSpans: [{ scopeSpans: [{ spans: [{ ...span([]), startTimeUnixNano: t }] }] }] }));
    assert.throws(() => decodeJsonTraces(withTime(raw('1e30'))), badData(/startTimeUnixNano/));
    assert.throws(() => decodeJsonTraces(withTime('18446744073709551616')), badData(/uint64 range/));
    assert.throws(() => decodeJsonTraces(withTime(raw('18446744073709551616'))), badData(/uint64 range/));
    assert.throws(() => decodeJsonTraces(withTime(raw('-1'))), badData(/uint64 range/));
    assert.throws(() => decodeJsonTraces(withTime(raw('1.5'))), badData(/must be an integer/));
    // the largest u64 is a valid time (year 2554) and decodes
    assert.equal(decodeJsonTraces(withTime('18446744073709551615'))[0]!.startTimeUnixNano, 2n ** 64n - 1n);
    assert.equal(decodeJsonTraces(withTime(raw('1.787301e18')))[0]!.startTimeUnixNano, 1787301000000000000n);
    for (const v of ['9223372036854775808', raw('9223372036854775808'), raw('1e30'), '-9223372036854775809']) {
      assert.throws(() => decodeJsonTraces(jsonBody([{ key: 'i', value: { intValue: v } }])), badData(/int64 range|64-bit integer range/), v);
    }
    // protobuf cannot carry an int64 beyond range; a varint longer than 10 bytes is refused
    const wrap = (tag: number, inner: number[]) => [tag, inner.length, ...inner];
    const anyValue = [0x18, ...Array(10).fill(0xff), 0x01];
    const bad = Buffer.from(wrap(0x0a, wrap(0x12, wrap(0x12, wrap(0x4a, wrap(0x12, anyValue))))));
    assert.throws(() => decodeProtoTraces(bad), badData());
  });

  it('deep nesting in logs and metrics is refused alike in both encodings', () => {
    const deep = nest(3000, leaf, 'kvlist');
    const logsJson = Buffer.from(jsonText({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: deep.json }] }] }] }));
    const logsProto = ld(1, ld(2, ld(2, ld(5, deep.proto as Buffer))));
    assert.throws(() => decodeJsonLogs(logsJson), badData(/nested deeper/));
    assert.throws(() => decodeProtoLogs(logsProto), badData(/nested deeper/));
    const okDepth = { json: nestedJson(MAX_ANY_VALUE_DEPTH), proto: nestedProto(MAX_ANY_VALUE_DEPTH) };
    // a point with a value: the decoder that serves exports maps the attributes of those it stores
    const point = (v: unknown) => ({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'm', gauge: { dataPoints: [{ asDouble: 1, attributes: [{ key: 'a', value: v }] }] } }] }] }] });
    assert.equal(decodeJsonMetrics(Buffer.from(jsonText(point(okDepth.json)))).dataPoints, 1);
    assert.equal(decodeProtoMetrics(Buffer.from(MetricsRequest.encode(MetricsRequest.fromObject(point(okDepth.proto))).finish())).dataPoints, 1);
    const tooDeep = { json: nestedJson(MAX_ANY_VALUE_DEPTH + 1), proto: nestedProto(MAX_ANY_VALUE_DEPTH + 1) };
    assert.throws(() => decodeJsonMetrics(Buffer.from(jsonText(point(tooDeep.json)))), badData(/nested deeper/));
    assert.throws(() => decodeProtoMetrics(Buffer.from(MetricsRequest.encode(MetricsRequest.fromObject(point(tooDeep.proto))).finish())), badData(/nested deeper/));
  });
});
