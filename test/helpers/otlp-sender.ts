import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { OtlpTypes } from '../../src/receiver/proto-root';
import { gooseDefaultLoopTurn } from './goose-spans';
import { grpcExport } from './grpc-client';
import { GOOSE_RESOURCE, kvs, traceRequest } from './otlp-json';

/**
 * OTLP exports sent from a process of its own — run as another local user (setpriv) or as this
 * one — so the collector sees them on that user's sockets. Each export is one goose turn of a
 * session named here (fresh span ids: none is a duplicate), over OTLP/HTTP JSON or OTLP/gRPC.
 */
export interface SendPlan {
  /** OTLP/HTTP base, e.g. http://127.0.0.1:4318 */
  url?: string;
  /** OTLP/gRPC host:port */
  grpc?: string;
  session: string;
  exports: number;
  /** the request target sent as is, byte for byte (default /v1/traces): fetch would normalize it */
  path?: string;
  /** sent as `Authorization: Bearer <it>` */
  token?: string;
}

export interface SendResult {
  /** each HTTP export's status, and the first refusal's body */
  http: number[];
  httpBody?: string;
  /** each gRPC export's code (0 OK), and the first refusal's details */
  grpc: number[];
  grpcDetails?: string;
}

const spansOf = (plan: SendPlan) => gooseDefaultLoopTurn({ sessionId: plan.session }).spans;

function traceProto(plan: SendPlan): Buffer {
  const msg = OtlpTypes.traceRequest.fromObject({
    resourceSpans: [{
      resource: { attributes: kvs(GOOSE_RESOURCE) },
      scopeSpans: [{
        scope: { name: 'goose' },
        spans: spansOf(plan).map((s) => ({
          traceId: Buffer.from(s.traceId, 'hex'), spanId: Buffer.from(s.spanId, 'hex'), parentSpanId: s.parentSpanId ? Buffer.from(s.parentSpanId, 'hex') : undefined,
          name: s.name, kind: 1, startTimeUnixNano: s.start.toString(), endTimeUnixNano: s.end.toString(), attributes: kvs(s.attributes), status: {},
        })),
      }],
    }],
  });
  return Buffer.from(OtlpTypes.traceRequest.encode(msg).finish());
}

export async function sendExports(plan: SendPlan): Promise<SendResult> {
  const out: SendResult = { http: [], grpc: [] };
  for (let i = 0; i < plan.exports; i++) {
    if (plan.url) {
      const headers = { 'content-type': 'application/json', ...(plan.token ? { authorization: `Bearer ${plan.token}` } : {}) };
      const r = await postRaw(plan.url, plan.path ?? '/v1/traces', headers, JSON.stringify(traceRequest(spansOf(plan))));
      out.http.push(r.status);
      if (r.status !== 200) out.httpBody ??= r.body;
    }
    if (plan.grpc) {
      const r = await grpcExport(plan.grpc, 'trace', traceProto(plan));
      out.grpc.push(r.code);
      if (r.code !== 0) out.grpcDetails ??= r.details;
    }
  }
  return out;
}

/** One POST with its request target exactly as given (node:http does not rewrite it). */
function postRaw(base: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port), path, method: 'POST', headers, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error(`POST ${path}: no answer in 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs the plan in a process of its own, as the user `prefix` makes it (setpriv …), or as this one. */
export function sendFrom(prefix: readonly string[], plan: SendPlan): SendResult {
  const argv = [...prefix, process.execPath, __filename, JSON.stringify(plan)];
  const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`sender (${prefix.join(' ') || 'this user'}) failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as SendResult;
}

if (require.main === module) {
  void sendExports(JSON.parse(process.argv[2]!) as SendPlan).then((r) => process.stdout.write(JSON.stringify(r)));
}
