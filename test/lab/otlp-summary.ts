/**
 * For the agents lab's capture run: OTLP bodies as OTLP/JSON (protobuf decoded with the official
 * opentelemetry-proto files that @elastic/mockotlpserver ships, through protobufjs, so nothing of
 * Beacon's decoder is involved), and a summary of what an agent sent: names with counts, and which
 * attributes carry the session id, the usage numbers, the tool call id and the command line.
 */
import { dirname, join } from 'node:path';
import * as protobuf from 'protobufjs';
import type { CapturedRequest } from '../helpers/otlp-capture';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let root: protobuf.Root | undefined;

function protoRoot(): protobuf.Root {
  if (root) return root;
  const base = join(dirname(require.resolve('@elastic/mockotlpserver/package.json')), 'opentelemetry', 'proto');
  const r = new protobuf.Root();
  // imports are written relative to the repository root ("opentelemetry/proto/common/v1/common.proto")
  r.resolvePath = (_origin, target) => (target.startsWith('opentelemetry/') ? join(base, '..', '..', target) : target);
  r.loadSync(['collector/trace/v1/trace_service.proto', 'collector/metrics/v1/metrics_service.proto', 'collector/logs/v1/logs_service.proto'].map((p) => join(base, p)));
  root = r;
  return r;
}

const REQUEST_TYPES: Record<string, string> = {
  traces: 'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest',
  metrics: 'opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest',
  logs: 'opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest',
};

const ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** The request as OTLP/JSON: parsed when it came as JSON, decoded from protobuf otherwise. */
export function otlpJsonOf(signal: string, req: CapturedRequest): Json {
  if (/json/i.test(req.contentType)) return JSON.parse(req.body.toString('utf8'));
  const type = REQUEST_TYPES[signal];
  if (!type) throw new Error(`no OTLP request type for signal ${signal}`);
  const T = protoRoot().lookupType(type);
  const msg = T.decode(req.body);
  const obj = T.toObject(msg, { longs: String, enums: Number, bytes: String, defaults: false, arrays: true, oneofs: false });
  return hexIds(obj) as Json;
}

/** OTLP/JSON writes trace and span ids as hex, not base64. */
function hexIds(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) return v.map((x) => hexIds(x));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hexIds(x, k)]));
  if (typeof v === 'string' && ID_FIELDS.has(key)) return Buffer.from(v, 'base64').toString('hex');
  return v;
}

/** An AnyValue as a plain value. */
export function plain(v: Json | undefined): unknown {
  if (!v || typeof v !== 'object') return v;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return typeof v.intValue === 'string' ? `${v.intValue}(int-as-string)` : v.intValue;
  if ('doubleValue' in v) return v.doubleValue;
  if ('arrayValue' in v) return (v.arrayValue?.values ?? []).map(plain);
  if ('kvlistValue' in v) return Object.fromEntries((v.kvlistValue?.values ?? []).map((kv: Json) => [kv.key, plain(kv.value)]));
  if ('bytesValue' in v) return `bytes:${v.bytesValue}`;
  return '(empty AnyValue)';
}

const attrs = (list: Json[] | undefined): Record<string, unknown> => Object.fromEntries((list ?? []).map((kv) => [kv.key, plain(kv.value)]));

export interface AgentSummary {
  requests: Record<string, number>;
  resources: Record<string, Record<string, unknown>>;
  scopes: Record<string, string[]>;
  spans: Record<string, number>;
  logs: Record<string, number>;
  metrics: Record<string, string>;
  /** attribute keys (where: "span <name>" / "log <name>" / "resource" / "metric <name>") whose value mentions the needle */
  carriers: Record<string, string[]>;
}

const NEEDLES: Array<[string, (k: string, v: unknown) => boolean]> = [
  ['session id (keys naming session/conversation)', (k) => /session|conversation/i.test(k)],
  ['tool call id (call_beacon_0001 / toolu_beacon_0001)', (_k, v) => /(call|toolu)_beacon_0001/.test(JSON.stringify(v) ?? '')],
  ['command line (echo beacon-lab)', (_k, v) => /echo beacon-lab/.test(JSON.stringify(v) ?? '')],
  ['usage (1200 or 1500 on a key naming token/usage)', (k, v) => /token|usage/i.test(k) && /\b(1200|1500)\b/.test(JSON.stringify(v) ?? '')],
  ['response id (resp_/chatcmpl-/msg_/gem_ beacon)', (_k, v) => /(resp_|chatcmpl-|msg_|gem_)beacon_?-?\d{4}/.test(JSON.stringify(v) ?? '')],
];

export function summarize(decoded: Array<{ signal: string; json: Json }>): AgentSummary {
  const s: AgentSummary = { requests: {}, resources: {}, scopes: {}, spans: {}, logs: {}, metrics: {}, carriers: {} };
  const carry = (where: string, a: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(a)) {
      for (const [label, test] of NEEDLES) {
        if (!test(k, v)) continue;
        const list = (s.carriers[label] ??= []);
        const entry = `${where}: ${k}`;
        if (!list.includes(entry)) list.push(entry);
      }
    }
  };
  const bump = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);
  for (const { signal, json } of decoded) {
    bump(s.requests, signal);
    const groups: Json[] = json.resourceSpans ?? json.resourceLogs ?? json.resourceMetrics ?? [];
    for (const g of groups) {
      const res = attrs(g.resource?.attributes);
      s.resources[`${signal}`] = { ...(s.resources[signal] ?? {}), ...res };
      carry(`${signal} resource`, res);
      for (const sc of g.scopeSpans ?? g.scopeLogs ?? g.scopeMetrics ?? []) {
        const list = (s.scopes[signal] ??= []);
        const name = sc.scope?.name ?? '(no scope name)';
        if (!list.includes(name)) list.push(name);
        for (const span of sc.spans ?? []) {
          bump(s.spans, span.name);
          carry(`span ${span.name}`, attrs(span.attributes));
          for (const ev of span.events ?? []) carry(`span ${span.name} event ${ev.name}`, attrs(ev.attributes));
        }
        for (const rec of sc.logRecords ?? []) {
          const a = attrs(rec.attributes);
          const body = plain(rec.body);
          const name = typeof a['event.name'] === 'string' ? (a['event.name'] as string) : rec.eventName ? `eventName:${rec.eventName}` : `body:${String(Array.isArray(body) ? body[0] : body).slice(0, 60)}`;
          bump(s.logs, name);
          carry(`log ${name}`, a);
        }
        for (const m of sc.metrics ?? []) {
          const kind = ['sum', 'gauge', 'histogram', 'exponentialHistogram', 'summary'].find((k) => m[k]) ?? '?';
          const temporality = m[kind]?.aggregationTemporality;
          s.metrics[m.name] = `${kind}${temporality !== undefined ? ` temporality=${temporality === 1 || temporality === 'AGGREGATION_TEMPORALITY_DELTA' ? 'DELTA' : temporality === 2 || temporality === 'AGGREGATION_TEMPORALITY_CUMULATIVE' ? 'CUMULATIVE' : temporality}` : ''}`;
          for (const p of m[kind]?.dataPoints ?? []) carry(`metric ${m.name}`, attrs(p.attributes));
        }
      }
    }
  }
  return s;
}
