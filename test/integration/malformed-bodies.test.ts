import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { gooseExportTemplate } from '../../bench/fixture';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { traceRequest } from '../helpers/otlp-json';
import { repoRoot } from '../helpers/paths';
import { deepKvlist, emptySpansBody, ld, rssMb } from '../helpers/wire';

/**
 * The fault battery (bounded: ~2,400 requests, a few seconds): malformed bodies of every kind on
 * the three signals, in both encodings, against one daemon. None may get a 5xx or a reset, the
 * daemon's memory stays bounded, and a valid export is still stored afterwards.
 */
const root = protobuf.loadSync(join(repoRoot(), 'proto', 'otlp.proto'));
const Metrics = root.lookupType('beacon.otlp.ExportMetricsServiceRequest');
const Logs = root.lookupType('beacon.otlp.ExportLogsServiceRequest');

/** A seeded PRNG (mulberry32), so a failure reproduces. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Signal = 'traces' | 'metrics' | 'logs';
interface Case {
  signal: Signal;
  type: 'json' | 'protobuf';
  body: Buffer;
  gzip?: boolean;
  kind: string;
}

function validBodies(): Record<Signal, { json: Buffer; protobuf: Buffer }> {
  const metrics = { resourceMetrics: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'goose' } }] }, scopeMetrics: [{ metrics: [{ name: 'goose.tool_calls', sum: { dataPoints: [{ asInt: '3', timeUnixNano: '1787301000000000000', attributes: [{ key: 'tool_name', value: { stringValue: 'shell' } }] }], aggregationTemporality: 2, isMonotonic: true } }] }] }] };
  const logs = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1787301000000000000', severityNumber: 9, body: { stringValue: 'tool call' }, attributes: [{ key: 'session.id', value: { stringValue: 's1' } }], traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' }] }] }] };
  const pbLogs = structuredClone(logs) as { resourceLogs: { scopeLogs: { logRecords: Record<string, unknown>[] }[] }[] };
  pbLogs.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!.traceId = Buffer.from('4bf92f3577b34da6a3ce929d0e0e4736', 'hex');
  pbLogs.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!.spanId = Buffer.from('00f067aa0ba902b7', 'hex');
  return {
    traces: { json: Buffer.from(JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: 'battery' }).spans))), protobuf: gooseExportTemplate(20).body },
    metrics: { json: Buffer.from(JSON.stringify(metrics)), protobuf: Buffer.from(Metrics.encode(Metrics.fromObject(metrics)).finish()) },
    logs: { json: Buffer.from(JSON.stringify(logs)), protobuf: Buffer.from(Logs.encode(Logs.fromObject(pbLogs)).finish()) },
  };
}

/** JSON with values swapped for the wrong type, at random places. */
function wrongTypes(json: Buffer, rand: () => number): Buffer {
  const swaps = ['"x"', '1', '-1.5', 'true', 'null', '[]', '{}', '[1,"a"]', '"NaN"', '1e30', '18446744073709551616', '{"a":{"b":[]}}'];
  return Buffer.from(json.toString().replace(/("[^"]+":)("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)/g, (m, k) => (rand() < 0.15 ? k + swaps[Math.floor(rand() * swaps.length)] : m)));
}

function generate(total: number): Case[] {
  const rand = rng(9);
  // Built once: the deep values cost O(depth²) to build, and a few depths cover the cases.
  const deepValues = [17, 40, 120, 3000].map(deepKvlist);
  const valid = validBodies();
  const cases: Case[] = [];
  const signals: Signal[] = ['traces', 'metrics', 'logs'];
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  for (let i = 0; cases.length < total; i++) {
    const signal = signals[i % 3]!;
    const type = i % 2 ? 'json' : 'protobuf';
    const base = valid[signal][type];
    const kind = i % 100 === 0 ? 'bomb' : pick(['truncated', 'bitflip', 'bitflip', 'wrongtypes', 'deep', 'deep', 'time', 'count', 'gzip-garbage', 'gzip-truncated', 'random', 'junk-tail']);
    let body: Buffer;
    let gzip = false;
    switch (kind) {
      case 'truncated':
        body = base.subarray(0, Math.floor(rand() * base.length));
        break;
      case 'bitflip':
        body = Buffer.from(base);
        for (let f = 1 + Math.floor(rand() * 8); f > 0; f--) body[Math.floor(rand() * body.length)]! ^= 1 << Math.floor(rand() * 8);
        break;
      case 'wrongtypes':
        body = type === 'json' ? wrongTypes(base, rand) : Buffer.concat([base, ld(1, Buffer.from([0x0a, 0x05, 0x30, 0xff]))]);
        break;
      case 'deep': {
        // a valid export plus one deep attribute: in the resource, or (traces) on a span of its own
        const deep = pick(deepValues);
        const kv = Buffer.concat([ld(1, Buffer.from('deep')), ld(2, deep.proto)]);
        const onSpan = signal === 'traces' && rand() < 0.5;
        if (type === 'json') {
          const text = base.toString();
          body = Buffer.from(
            onSpan
              ? text.replace('"spans":[', `"spans":[{"name":"plain","attributes":[{"key":"deep","value":${deep.json}}]},`)
              : text.replace('"attributes":[', `"attributes":[{"key":"deep","value":${deep.json}},`), // the first: resource (traces, metrics) or log record
          );
          assert.notEqual(body.length, text.length);
        } else body = Buffer.concat([base, ld(1, onSpan ? ld(2, ld(2, ld(9, kv))) : ld(1, ld(1, kv)))]); // repeated fields concatenate
        break;
      }
      case 'time': {
        const text = valid.traces.json.toString();
        body = Buffer.from(text.replace(/"startTimeUnixNano":"\d+"/, `"startTimeUnixNano":${pick(['1e30', '18446744073709551616', '-5', '1.5', '"soon"'])}`));
        break;
      }
      case 'bomb':
        body = emptySpansBody(4_000_000);
        break;
      case 'count': {
        const n = pick([10_001, 25_000, 60_000]);
        if (signal === 'traces' && type === 'protobuf') body = emptySpansBody(n);
        else if (type === 'protobuf') body = ld(1, ld(2, emptySpansBody(n).subarray(emptySpansBody(n).length - n * 2)));
        else {
          const [r, s, it] = signal === 'traces' ? ['resourceSpans', 'scopeSpans', 'spans'] : signal === 'metrics' ? ['resourceMetrics', 'scopeMetrics', 'metrics'] : ['resourceLogs', 'scopeLogs', 'logRecords'];
          body = Buffer.from(`{"${r}":[{"${s}":[{"${it}":[${Array(n).fill(signal === 'metrics' ? '{"gauge":{"dataPoints":[{}]}}' : '{}').join(',')}]}]}]}`);
        }
        break;
      }
      case 'gzip-garbage':
        body = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from(Array.from({ length: 64 + Math.floor(rand() * 512) }, () => Math.floor(rand() * 256)))]);
        gzip = true;
        break;
      case 'gzip-truncated': {
        const z = gzipSync(base);
        body = z.subarray(0, Math.floor(rand() * z.length));
        gzip = true;
        break;
      }
      case 'random':
        body = Buffer.from(Array.from({ length: 1 + Math.floor(rand() * 2048) }, () => Math.floor(rand() * 256)));
        break;
      default:
        body = Buffer.concat([base, Buffer.from(type === 'json' ? ',]}' : [0xff, 0xff, 0xff])]);
    }
    const fixed = kind === 'time' ? { signal: 'traces' as const, type: 'json' as const } : kind === 'bomb' ? { signal: 'traces' as const, type: 'protobuf' as const } : {};
    cases.push({ signal, type, body, gzip, kind, ...fixed });
  }
  return cases;
}

describe('fault battery: malformed bodies', () => {
  it('2,400 malformed bodies on /v1/traces, /v1/metrics, /v1/logs: no 5xx, no reset, RSS bounded, a valid export stored after', async () => {
    const c = await startCollector();
    const cases = generate(2400);
    const baseline = rssMb(c.proc.pid!).rss;
    let peak = baseline;
    const poll = setInterval(() => (peak = Math.max(peak, rssMb(c.proc.pid!).rss)), 50);
    const statuses: Record<string, number> = {};
    const failures: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < cases.length) {
          const k = cases[next++]!;
          const headers: Record<string, string> = { 'content-type': k.type === 'json' ? 'application/json' : 'application/x-protobuf' };
          if (k.gzip) headers['content-encoding'] = 'gzip';
          try {
            const r = await fetch(`${c.url}/v1/${k.signal}`, { method: 'POST', body: k.body, headers });
            await r.arrayBuffer();
            statuses[r.status] = (statuses[r.status] ?? 0) + 1;
            if (r.status >= 500) failures.push(`${r.status} for ${k.kind} ${k.type} ${k.signal}`);
          } catch (e) {
            failures.push(`${String((e as { cause?: { code?: string } }).cause?.code ?? e)} for ${k.kind} ${k.type} ${k.signal}`);
          }
        }
      }),
    );
    clearInterval(poll);
    assert.deepEqual(failures.slice(0, 10), [], `statuses ${JSON.stringify(statuses)}`);
    assert.ok((statuses[400] ?? 0) > 1000 && (statuses[413] ?? 0) > 100, JSON.stringify(statuses));
    assert.ok(peak < baseline + 250, `peak RSS ${peak.toFixed(0)} MB, ${baseline.toFixed(0)} MB at the start`);
    const turn = gooseDefaultLoopTurn({ sessionId: 'after_battery' });
    const ok = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(turn.spans)), headers: { 'content-type': 'application/json' } });
    assert.equal(ok.status, 200);
    assert.equal(jsonl(runBeacon(['events', '--log', c.log, '--json', '--session', 'after_battery']).stdout).length, 4);
    assert.equal(await c.stop(), 0);
    console.log(`fault battery: ${cases.length} bodies, statuses ${JSON.stringify(statuses)}, RSS ${baseline.toFixed(0)} → peak ${peak.toFixed(0)} MB`);
  });
});
