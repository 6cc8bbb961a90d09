/**
 * OTLP/gRPC against OTLP/HTTP in the same run: the same 100-span protobuf export (fresh ids each
 * time, so every export is stored), over one gRPC channel and over 8 keep-alive HTTP/1.1 sockets, 8 in flight,
 * in alternating slices so the machine's other load falls on both alike. Reported as a ratio.
 */
import http from 'node:http';
import * as grpc from '@grpc/grpc-js';
import { freePort } from '../test/helpers/ports';
import { startCollector } from '../test/helpers/daemon';
import { gooseExportTemplate, stampIds } from './fixture';

const bytes = (b: Buffer) => b;
const TRACE_EXPORT = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

export async function benchGrpc(): Promise<Record<string, number>> {
  const { body, idOffsets } = gooseExportTemplate(100);
  const c = await startCollector({ args: ['--grpc-port', String(await freePort())] });
  const client = new grpc.Client(c.grpc, grpc.credentials.createInsecure());
  let n = 1;
  const overGrpc = () =>
    new Promise<void>((resolve, reject) =>
      client.makeUnaryRequest(TRACE_EXPORT, bytes, bytes, stampIds(body, idOffsets, n++), (err) => (err ? reject(err) : resolve())),
    );
  // node:http with keep-alive, not fetch: undici's per-request cost in this process would be charged to HTTP
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const overHttp = () =>
    new Promise<void>((resolve, reject) => {
      const payload = stampIds(body, idOffsets, n++);
      const req = http.request(`${c.url}/v1/traces`, { method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': payload.length } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(payload);
    });
  const latencies = { grpc: [] as number[], http: [] as number[] };
  const counts = { grpc: 0, http: 0 };
  const time = { grpc: 0, http: 0 };
  const slice = async (which: 'grpc' | 'http', ms: number) => {
    const send = which === 'grpc' ? overGrpc : overHttp;
    const started = performance.now();
    const end = started + ms;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await send();
        latencies[which].push(performance.now() - t);
        counts[which]++;
      }
    }));
    time[which] += performance.now() - started;
  };
  await slice('grpc', 500); // warm both: the channel, the writer thread, the JIT
  await slice('http', 500);
  for (const k of ['grpc', 'http'] as const) [latencies[k].length, counts[k], time[k]] = [0, 0, 0];
  for (let round = 0; round < 6; round++) await slice(round % 2 === 0 ? 'grpc' : 'http', 1000);
  client.close();
  agent.destroy();
  await c.stop();
  const pct = (xs: number[], p: number) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
  const rate = (k: 'grpc' | 'http') => (counts[k] * 100) / (time[k] / 1000);
  const r = { grpcSpansPerSec: rate('grpc'), httpSpansPerSec: rate('http'), grpcP50Ms: pct(latencies.grpc, 0.5), httpP50Ms: pct(latencies.http, 0.5), grpcP99Ms: pct(latencies.grpc, 0.99), httpP99Ms: pct(latencies.http, 0.99) };
  const f = (x: number, d = 0) => x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log(`OTLP/gRPC vs OTLP/HTTP (the same 100-span protobuf export, 8 in flight, 3 alternating 1 s slices each): gRPC ${f(r.grpcSpansPerSec)} spans/s (p50 ${f(r.grpcP50Ms, 1)} ms, p99 ${f(r.grpcP99Ms, 1)} ms), HTTP ${f(r.httpSpansPerSec)} spans/s (p50 ${f(r.httpP50Ms, 1)} ms, p99 ${f(r.httpP99Ms, 1)} ms): gRPC/HTTP ${f(r.grpcSpansPerSec / r.httpSpansPerSec, 2)}×`);
  return r;
}
