import { randomBytes } from 'node:crypto';
import { LogsTypes, TraceTypes } from '../forward/otlp-proto';
import { EventLog } from '../store/log/event-log';
import { inspectLog } from '../store/log/log-file';
import type * as GrpcJs from '@grpc/grpc-js';
import type { AgentSpec, Target } from './agents/spec';
import type { Check } from './doctor';
import { TEST_SESSION_PREFIX } from './agents/spec';

// The forwarder's OTLP message types (the one place besides the receiver that loads protobufjs).
const TYPES = { logs: LogsTypes.request, traces: TraceTypes.request } as const;

/** OTLP/JSON's hex ids as protobuf bytes; the rest protobufjs reads from the JSON form as it is. */
function withBytes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withBytes);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, (k === 'traceId' || k === 'spanId' || k === 'parentSpanId') && typeof x === 'string' ? Buffer.from(x, 'hex') : withBytes(x)]));
}

function encode(signal: 'logs' | 'traces', request: object): Uint8Array {
  const type = TYPES[signal];
  return type.encode(type.fromObject(withBytes(request) as Record<string, unknown>)).finish();
}

/**
 * `beacon doctor --send-test <agent>`: one record shaped like the agent's own (a model call with no
 * tokens), posted over the protocol and encoding the agent's export uses, then found in the log under
 * the agent's harness name. It stays there, marked by its beacon-doctor-test-… session.
 */
export async function agentSendTest(spec: AgentSpec, base: string, log: string, env: NodeJS.ProcessEnv, target?: Target, hook?: { cwd: string; config: string; launcher: string }): Promise<Check[]> {
  const otlp = await otlpSendTest(spec, base, log, env, target);
  if (!hook || !spec.hooks) return otlp;
  const { hookSendTest } = require('./agent-hook-send-test') as typeof import('./agent-hook-send-test');
  return [...otlp, ...hookSendTest(spec, { env, log, ...hook })];
}

async function otlpSendTest(spec: AgentSpec, base: string, log: string, env: NodeJS.ProcessEnv, target?: Target): Promise<Check[]> {
  const session = `${TEST_SESSION_PREFIX}${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${randomBytes(3).toString('hex')}`;
  const rec = spec.testRecord(session, BigInt(Date.now()) * 1_000_000n, env);
  const grpc = target?.protocol === 'grpc';
  const url = grpc ? `${target!.base} (${GRPC_SERVICES[rec.signal]}/Export)` : `${base}/v1/${rec.signal}`;
  const id = `${spec.id}-send-test`;
  const how = grpc ? 'OTLP/gRPC' : `OTLP/HTTP ${rec.encoding === 'protobuf' ? 'protobuf' : 'JSON'}`;
  if (grpc) {
    const failure = await exportOverGrpc(`127.0.0.1:${target!.port}`, rec.signal, encode(rec.signal, rec.request), target!.token);
    if (failure) return [{ id, status: 'fail', message: `the OTLP/gRPC export to ${url} failed: ${failure}`, fix: 'see the collector and gRPC checks above' }];
  } else try {
    const body = rec.encoding === 'protobuf' ? encode(rec.signal, rec.request) : JSON.stringify(rec.request);
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': rec.encoding === 'protobuf' ? 'application/x-protobuf' : 'application/json', ...(target?.token ? { authorization: `Bearer ${target.token}` } : {}) }, body, signal: AbortSignal.timeout(10_000) });
    if (!r.ok) return [{ id, status: 'fail', message: `POST ${url} (${how}) answered ${r.status}: ${(await r.text()).slice(0, 200)}`, fix: 'see the collector check above' }];
  } catch (e) {
    return [{ id, status: 'fail', message: `POST ${url} failed: ${(e as Error).message}`, fix: 'start the collector (see above)' }];
  }
  return foundInLog(spec, log, session, rec.signal, how, url);
}

const GRPC_SERVICES = { logs: 'opentelemetry.proto.collector.logs.v1.LogsService', traces: 'opentelemetry.proto.collector.trace.v1.TraceService' } as const;

/** One OTLP/gRPC Export call with the encoded request; undefined on success, else why not. */
async function exportOverGrpc(address: string, signal: 'logs' | 'traces', body: Uint8Array, token?: string): Promise<string | undefined> {
  const grpc = (await import('@grpc/grpc-js')) as typeof GrpcJs;
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const bytes = (b: Buffer) => b;
  const metadata = new grpc.Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve) => {
    client.makeUnaryRequest(`/${GRPC_SERVICES[signal]}/Export`, bytes, bytes, Buffer.from(body), metadata, { deadline: Date.now() + 10_000 }, (err) => {
      client.close();
      resolve(err ? `${grpc.status[err.code] ?? err.code}: ${err.details}` : undefined);
    });
  });
}

function foundInLog(spec: AgentSpec, log: string, session: string, signal: string, how: string, url: string): Check[] {
  const id = `${spec.id}-send-test`;
  const harnesses = new Set<string>();
  if (inspectLog(log).kind === 'file') {
    try {
      const l = EventLog.open(log, { readonly: true });
      try {
        for (const row of l.list({ sessionId: session })) harnesses.add(JSON.parse(row.record).harness?.name);
      } finally {
        l.close();
      }
    } catch {
      /* reported below as not found */
    }
  }
  if (!harnesses.has(spec.id)) {
    return [{ id, status: 'fail', message: `the collector accepted a ${spec.title}-shaped ${signal} record (${how}) but no ${spec.id} event of session ${session} is in ${log}${harnesses.size ? ` (found: ${[...harnesses].join(', ')})` : ''}`, fix: 'run the collector on the log doctor reads (--log / BEACON_ENDPOINT_LOG)' }];
  }
  return [{ id, status: 'ok', message: `a ${spec.title}-shaped ${signal} record went over ${how} to ${url} and is in ${log} as ${spec.id}: beacon events --session ${session}` }];
}
