import assert from 'node:assert/strict';
import { readdirSync, readlinkSync, readFileSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pino from 'pino';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { gooseExportTemplate } from '../../bench/fixture';
import { startCollectorService } from '../../src/collector/service';
import { resolveCollectorConfig } from '../../src/config/config';
import { BeaconError } from '../../src/model/errors';
import type { BeaconRecord } from '../../src/model/record';
import * as sanitize from '../../src/redact/sanitize';
import { jsonl, runBeacon, startCollector, type RunningCollector } from '../helpers/daemon';
import { encodeLogs, newTurn, promptInjectionFinding, toolCallCompleted } from '../helpers/goose-logs';
import { declareGrpcMessage, grpcExport, sendGrpcMessage, type StreamAnswer } from '../helpers/grpc-client';
import { freePort } from '../helpers/ports';
import { tempDir } from '../helpers/paths';
import { emptySpansBody } from '../helpers/wire';

/**
 * OTLP/gRPC (issue 21 item 1), with real clients: the OpenTelemetry JS gRPC exporter, a grpc-js
 * client for the codes and status details, the compiled `beacon collector`. Each test fails
 * without the gRPC receiver (nothing listens on --grpc-port).
 */
const PB = { 'content-type': 'application/x-protobuf' };

function agentSpans(sessionId: string): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'goose', 'service.version': '1.47.0' }), spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer('goose');
  tracer.startSpan('stream_response_from_provider', {
    attributes: {
      'session.id': sessionId, 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic', 'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.response.id': `msg_${sessionId}`, 'gen_ai.usage.input_tokens': 2000, 'gen_ai.usage.output_tokens': 50, 'gen_ai.usage.cache_read.input_tokens': 1500,
    },
  }).end();
  tracer.startSpan('dispatch_tool_call', { attributes: { 'session.id': sessionId, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'github__create_issue', 'gen_ai.tool.call.id': `call_${sessionId}` } }).end();
  tracer.startSpan('reply', { attributes: { 'session.id': sessionId, 'gen_ai.operation.name': 'invoke_agent' } }).end();
  return memory.getFinishedSpans();
}

function exportWith(exporter: { export(spans: ReadableSpan[], cb: (r: ExportResult) => void): void; shutdown(): Promise<void> }, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise<ExportResult>((resolve) => exporter.export(spans, resolve)).finally(() => exporter.shutdown());
}

/** Every stored row but its commit order and the time it arrived. */
function storedRows(log: string): Record<string, unknown>[] {
  const db = new Database(log, { readonly: true });
  try {
    return (db.prepare('SELECT * FROM events ORDER BY id').all() as Record<string, unknown>[]).map(({ seq: _seq, received_ns: _received, ...row }) => row);
  } finally {
    db.close();
  }
}

async function health(c: { url: string }): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  return (await fetch(`${c.url}/health`)).json();
}

/** A process's resident memory, MiB. */
function rssMiB(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** TCP sockets the process listens on (Linux: its socket fds against /proc/net/tcp's LISTEN entries). */
function listeningSockets(pid: number): number {
  const inodes = new Set(readdirSync(`/proc/${pid}/fd`).map((fd) => { try { return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]; } catch { return undefined; } }).filter(Boolean));
  const rows = ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((f) => readFileSync(f, 'utf8').split('\n').slice(1)).map((l) => l.trim().split(/\s+/));
  return rows.filter((r) => r[3] === '0A' && inodes.has(r[9]!)).length;
}

describe('OTLP/gRPC beside OTLP/HTTP', () => {
  const running: RunningCollector[] = [];
  const start = async (args: string[] = [], config?: object) => {
    const extra = [...args];
    if (config) {
      const file = join(tempDir(), 'config.json');
      writeFileSync(file, JSON.stringify({ collector: config }));
      extra.push('--config', file);
    }
    const c = await startCollector({ args: extra });
    running.push(c);
    return c;
  };
  after(async () => {
    for (const c of running) await c.stop();
  });

  it('the OpenTelemetry JS gRPC exporter, plain and gzip: the same answer and the same stored rows as the same export over OTLP/HTTP; /health counts it', async () => {
    const overGrpc = await start(['--grpc-port', String(await freePort())]);
    const overHttp = await start();
    assert.match(overGrpc.grpc, /^127\.0\.0\.1:\d+$/);
    for (const compression of ['none', 'gzip'] as const) {
      const spans = agentSpans(`grpc_same_${compression}`);
      const viaGrpc = await exportWith(new GrpcExporter({ url: `http://${overGrpc.grpc}`, compression: compression as never }), spans);
      const viaHttp = await exportWith(new ProtoExporter({ url: `${overHttp.url}/v1/traces`, compression: compression as never }), spans);
      assert.equal(viaGrpc.code, ExportResultCode.SUCCESS, String(viaGrpc.error));
      assert.deepEqual(viaGrpc, viaHttp);
    }
    const rows = storedRows(overGrpc.log);
    assert.equal(rows.length, 4, 'a model call and a tool call per export');
    assert.deepEqual(rows, storedRows(overHttp.log));
    const evs = jsonl(runBeacon(['events', '--log', overGrpc.log, '--json', '--session', 'grpc_same_gzip']).stdout);
    assert.deepEqual(evs.map((e) => e.event.action), ['model.invoked', 'mcp.tool_invoked']);
    const h = await health(overGrpc);
    assert.deepEqual([h.grpc.state, h.grpc.address, h.grpc.exports, h.grpc.spans, h.grpc.inserted], ['listening', overGrpc.grpc, 2, 6, 4]);
    assert.deepEqual([h.exports, h.spans], [2, 6], 'the top-level counters are both transports together');
  });

  it('otlpToken guards gRPC as it guards HTTP: no or a wrong token is UNAUTHENTICATED and stores nothing; the token is accepted', async () => {
    const c = await start(['--grpc-port', String(await freePort())], { otlpToken: 'grpc-secret-0123456789' });
    const { body } = gooseExportTemplate(10);
    const none = await grpcExport(c.grpc, 'trace', body);
    assert.equal(none.code, 16, none.details); // UNAUTHENTICATED
    assert.match(none.details, /otlpToken/);
    assert.equal((await grpcExport(c.grpc, 'trace', body, { authorization: 'Bearer wrong' })).code, 16);
    assert.equal(jsonl(runBeacon(['events', '--log', c.log, '--json']).stdout).length, 0, 'nothing stored');
    const ok = await grpcExport(c.grpc, 'trace', body, { authorization: 'Bearer grpc-secret-0123456789' });
    assert.equal(ok.code, 0, ok.details);
    assert.ok(jsonl(runBeacon(['events', '--log', c.log, '--json']).stdout).length > 0);
  });

  it('bad data is INVALID_ARGUMENT; an export over maxItemsPerExport is RESOURCE_EXHAUSTED without RetryInfo; an empty export and a gzip one succeed', async () => {
    const c = await start(['--grpc-port', String(await freePort())], { maxItemsPerExport: 100 });
    const bad = await grpcExport(c.grpc, 'trace', Buffer.from([0x0a, 0xff, 0xff]));
    assert.equal(bad.code, 3, bad.details); // INVALID_ARGUMENT
    assert.match(bad.details, /invalid protobuf ExportTraceServiceRequest/);
    const tooMany = await grpcExport(c.grpc, 'trace', emptySpansBody(101));
    assert.equal(tooMany.code, 8, tooMany.details); // RESOURCE_EXHAUSTED, as grpc-go answers an oversized message
    assert.equal(tooMany.retryDelaySeconds, undefined, 'final: no RetryInfo, so exporters do not retry it');
    assert.match(tooMany.details, /101 spans, more than the limit of 100 per export \(maxItemsPerExport\)/);
    const empty = await grpcExport(c.grpc, 'logs', Buffer.alloc(0));
    assert.deepEqual([empty.code, empty.response?.length], [0, 0], 'full success leaves partial_success unset');
    const { body } = gooseExportTemplate(40);
    const zipped = await grpcExport(c.grpc, 'trace', body, { gzip: true });
    assert.equal(zipped.code, 0, zipped.details);
    assert.ok(jsonl(runBeacon(['events', '--log', c.log, '--json']).stdout).length > 0);
    // the size limit applies after decompression: RESOURCE_EXHAUSTED, final (no RetryInfo)
    const small = await start(['--grpc-port', String(await freePort()), '--max-body-bytes', '1000'], {});
    const big = await grpcExport(small.grpc, 'trace', Buffer.alloc(5000), { gzip: true }); // ~40 bytes on the wire
    assert.equal(big.code, 8, big.details);
    assert.equal(big.retryDelaySeconds, undefined);
    assert.match(big.details, /exceeds 1000 bytes after decompression/);
  });

  it('overload: RESOURCE_EXHAUSTED with RetryInfo while an HTTP export waits (one admission for both); UNAVAILABLE with RetryInfo past the busy timeout', async () => {
    const c = await start(['--grpc-port', String(await freePort())], { maxPendingExports: 1, busyTimeoutMs: 1500 });
    const holder = new Database(c.log);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const first = fetch(`${c.url}/v1/traces`, { method: 'POST', body: gooseExportTemplate(10).body, headers: PB });
      await new Promise((r) => setTimeout(r, 400)); // the HTTP export now waits for the log
      const refused = await grpcExport(c.grpc, 'trace', gooseExportTemplate(10).body);
      assert.equal(refused.code, 8, refused.details);
      assert.equal(refused.retryDelaySeconds, 1);
      assert.equal((await first).status, 503, 'the lock outlasted the busy timeout');
      const busy = await grpcExport(c.grpc, 'trace', gooseExportTemplate(10).body);
      assert.equal(busy.code, 14, busy.details); // UNAVAILABLE
      assert.equal(busy.retryDelaySeconds, 1);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    assert.equal((await grpcExport(c.grpc, 'trace', gooseExportTemplate(10).body)).code, 0);
  });

  it('one in-flight budget for both transports: a gRPC export is refused with RetryInfo while an HTTP export holds the bytes', async () => {
    const c = await start(['--grpc-port', String(await freePort())], { maxBytesInFlight: 1.5 * 1024 * 1024, busyTimeoutMs: 8000 });
    const holder = new Database(c.log);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const first = fetch(`${c.url}/v1/traces`, { method: 'POST', body: gooseExportTemplate(100).body, headers: PB }); // ~0.95 MiB once decoded
      let held = 0;
      for (let i = 0; i < 100 && held === 0; i++) {
        await new Promise((r) => setTimeout(r, 50));
        held = (await health(c)).bytes_in_flight;
      }
      assert.ok(held > 500_000, String(held));
      const refused = await grpcExport(c.grpc, 'trace', gooseExportTemplate(100).body);
      assert.equal(refused.code, 8, refused.details);
      assert.equal(refused.retryDelaySeconds, 1);
      assert.match(refused.details, /in flight \(limit 1\.5 MiB, maxBytesInFlight\)/);
      holder.exec('ROLLBACK');
      assert.equal((await first).status, 200);
    } finally {
      if (holder.inTransaction) holder.exec('ROLLBACK');
      holder.close();
    }
    assert.equal((await grpcExport(c.grpc, 'trace', gooseExportTemplate(100).body)).code, 0, 'the budget was returned');
    assert.equal((await health(c)).bytes_in_flight, 0);
  });

  // Fails on main: bytes_in_flight stayed 0, no stream was refused, and the collector grew by ~185 MB (71 → 256 MB).
  it('issue 29 item 4, scaled down: 60 streams declaring 20 MB, each sending 3 MiB and trickling, take from the in-flight budget; past it, RESOURCE_EXHAUSTED; memory stays bounded', async () => {
    const budget = 16 * 1024 * 1024;
    const c = await start(['--grpc-port', String(await freePort())], { maxBytesInFlight: budget });
    const before = rssMiB(c.proc.pid!);
    const sessions = Array.from({ length: 4 }, () => http2.connect(`http://${c.grpc}`, { maxSessionMemory: 1000 }).on('error', () => {}));
    const streams = Array.from({ length: 60 }, (_, i) => declareGrpcMessage(sessions[i % 4]!, 20_000_000, 3 * 1024 * 1024, 20_000));
    const trickle = setInterval(() => streams.forEach((s) => s.trickle()), 1000);
    try {
      await new Promise((r) => setTimeout(r, 3000));
      const held = (await health(c)).bytes_in_flight;
      const open = streams.filter((s) => !s.stream.closed).length;
      const grown = rssMiB(c.proc.pid!) - before;
      sessions.forEach((s) => s.destroy());
      const answers = await Promise.all(streams.map((s) => s.answer));
      const refused = answers.filter((a) => a.grpcStatus === 8 && a.retryDelaySeconds === 1);
      console.log(`# issue 29 item 4: 60 streams × 3 MiB offered: bytes_in_flight ${held} of ${budget} (${open} streams open), ${refused.length} refused RESOURCE_EXHAUSTED, collector RSS ${before.toFixed(0)} → ${(before + grown).toFixed(0)} MiB`);
      // what the open streams sent (prefix, 3 MiB, a byte a second since), and no more than the budget
      assert.ok(open >= 1 && held <= budget, `/health bytes_in_flight ${held}, ${open} streams open`);
      assert.ok(Math.abs(held - open * (5 + 3 * 1024 * 1024)) <= open * 8, `/health bytes_in_flight ${held} for ${open} open streams`);
      assert.equal(refused.length, 60 - open, `every other stream is refused: ${JSON.stringify(answers.slice(0, 3))}`);
      assert.ok(grown < 100, `the collector grew by ${grown.toFixed(0)} MiB for 180 MiB offered`);
    } finally {
      clearInterval(trickle);
      sessions.forEach((s) => s.destroy());
    }
    let after = -1;
    for (let i = 0; i < 40 && after !== 0; i++, await new Promise((r) => setTimeout(r, 50))) after = (await health(c)).bytes_in_flight;
    assert.equal(after, 0, 'every stream gave its bytes back when its connection went');
    assert.equal((await grpcExport(c.grpc, 'trace', gooseExportTemplate(10).body)).code, 0);
  });

  // Fails on main: grpc-js decompressed every bomb before the handler ran, so the budget saw only their
  // compressed bytes: bytes_in_flight stayed near 0, none was refused, and the collector grew by the bombs.
  it('gzip bombs over gRPC: the decompressed bytes take from the in-flight budget as they appear; past it, RESOURCE_EXHAUSTED with RetryInfo; memory stays bounded; the budget comes back', async () => {
    const budget = 16 * 1024 * 1024;
    const c = await start(['--grpc-port', String(await freePort())], { maxBytesInFlight: budget });
    const pid = c.proc.pid!;
    const bomb = gzipSync(Buffer.alloc(5_000_000, 0xff)); // ~5 KB on the wire; 0xff bytes are no protobuf, so a decompressed one is INVALID_ARGUMENT
    const before = rssMiB(pid);
    let peak = before;
    let held = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMiB(pid));
      void health(c).then((h) => (held = Math.max(held, h.bytes_in_flight)), () => {});
    }, 10);
    const sessions = Array.from({ length: 2 }, () => http2.connect(`http://${c.grpc}`).on('error', () => {}));
    let answers: StreamAnswer[];
    try {
      answers = await Promise.all(Array.from({ length: 30 }, (_, i) => sendGrpcMessage(sessions[i % 2]!, bomb, { gzip: true }).answer));
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      clearInterval(sampler);
      sessions.forEach((s) => s.destroy());
    }
    const refused = answers.filter((a) => a.grpcStatus === 8 && a.retryDelaySeconds === 1);
    const decompressed = answers.filter((a) => a.grpcStatus === 3);
    console.log(`# gzip bombs over gRPC: 30 × 5 MB (${bomb.length} B each on the wire), budget 16 MiB: highest bytes_in_flight ${held}, ${refused.length} refused RESOURCE_EXHAUSTED, ${decompressed.length} decompressed and INVALID_ARGUMENT; collector RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB`);
    assert.equal(refused.length + decompressed.length, 30, JSON.stringify(answers.slice(0, 3)));
    assert.ok(refused.length >= 10, `${refused.length} of 30 bombs refused (highest bytes_in_flight ${held})`);
    assert.ok(held > 5_000_000 && held <= budget, `highest bytes_in_flight ${held}`);
    assert.ok(peak - before < 100, `the collector grew by ${(peak - before).toFixed(0)} MiB for 150 MB of bombs`);
    let after = -1;
    for (let i = 0; i < 40 && after !== 0; i++, await new Promise((r) => setTimeout(r, 50))) after = (await health(c)).bytes_in_flight;
    assert.equal(after, 0, 'every bomb gave its bytes back');
    assert.equal((await grpcExport(c.grpc, 'trace', gooseExportTemplate(10).body, { gzip: true })).code, 0, 'a normal gzip export still succeeds');
    assert.equal((await health(c)).bytes_in_flight, 0);
  });

  // Client RST on every path (before the handler, while it inflates, after): each call returns its budget once, none is left held.
  it('gzip bombs whose clients reset the stream right after sending: memory stays bounded; the budget comes back', async () => {
    const budget = 16 * 1024 * 1024;
    const c = await start(['--grpc-port', String(await freePort())], { maxBytesInFlight: budget });
    const pid = c.proc.pid!;
    const bomb = gzipSync(Buffer.alloc(10_000_000, 0xff)); // one at a time fits the budget; its inflating takes ~20 ms
    const before = rssMiB(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 10);
    const session = http2.connect(`http://${c.grpc}`).on('error', () => {});
    try {
      for (let round = 0; round < 3; round++) {
        const sent = Array.from({ length: 20 }, (_, i) => {
          const s = sendGrpcMessage(session, bomb, { gzip: true });
          setTimeout(() => s.stream.close(http2.constants.NGHTTP2_CANCEL), 3 + (i % 15)); // 3–17 ms after: before, while or after the collector inflates it
          return s.answer;
        });
        await Promise.all(sent);
      }
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      clearInterval(sampler);
      session.destroy();
    }
    console.log(`# gzip bombs over gRPC, reset after sending: 3 × 20 × 10 MB, budget 16 MiB: collector RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB`);
    assert.ok(peak - before < 100, `the collector grew by ${(peak - before).toFixed(0)} MiB`);
    let after = -1;
    for (let i = 0; i < 40 && after !== 0; i++, await new Promise((r) => setTimeout(r, 50))) after = (await health(c)).bytes_in_flight;
    assert.equal(after, 0, 'every reset call gave its bytes back, once');
    assert.equal((await grpcExport(c.grpc, 'trace', gooseExportTemplate(10).body, { gzip: true })).code, 0);
  });

  it('a gRPC port in use: OTLP/HTTP still serves, the log names the port, /health says grpc is down and retrying; freed, it listens', async () => {
    const holder = createServer();
    const port = await new Promise<number>((resolve) => holder.listen(0, '127.0.0.1', () => resolve((holder.address() as { port: number }).port)));
    try {
      const c = await start(['--grpc-port', String(port)]);
      assert.equal(c.grpc, 'down');
      const line = c.lines.map((l) => JSON.parse(l)).find((j) => j.level === 50);
      assert.match(line.msg, new RegExp(`OTLP/gRPC is not listening on 127\\.0\\.0\\.1:${port}: port ${port} is in use.*OTLP/HTTP still runs`));
      const r = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: gooseExportTemplate(10).body, headers: PB });
      assert.equal(r.status, 200);
      const h = await health(c);
      assert.deepEqual([h.status, h.grpc.state], ['ok', 'down']);
      assert.match(h.grpc.error, new RegExp(`port ${port} is in use`));
      assert.equal(h.grpc.retrying, true);
      // issue 33: once the port is free the collector listens there, without a restart
      await new Promise<void>((resolve) => holder.close(() => resolve()));
      let state = h.grpc.state;
      for (let i = 0; i < 100 && state !== 'listening'; i++, await new Promise((r) => setTimeout(r, 100))) state = (await health(c)).grpc.state;
      assert.equal(state, 'listening', 'gRPC listens once its port is free');
      assert.equal((await grpcExport(`127.0.0.1:${port}`, 'trace', gooseExportTemplate(10).body)).code, 0);
      assert.equal((await health(c)).grpc.error, undefined);
    } finally {
      holder.close();
    }
  });

  it('--grpc-port 0: no gRPC listener, /health says off', async () => {
    const off = await start(['--grpc-port', '0']);
    assert.equal(off.grpc, 'off');
    assert.equal(listeningSockets(off.proc.pid!), 1, 'the HTTP port only');
    assert.equal((await health(off)).grpc.state, 'off');
    const on = await start(['--grpc-port', String(await freePort())]);
    assert.equal(listeningSockets(on.proc.pid!), 2, 'HTTP and gRPC');
  });

  it('shutdown answers a call in flight after its commit', async () => {
    const c = await start(['--grpc-port', String(await freePort())], { busyTimeoutMs: 5000 });
    const holder = new Database(c.log);
    holder.exec('BEGIN IMMEDIATE');
    const inFlight = grpcExport(c.grpc, 'trace', gooseExportTemplate(10).body);
    await new Promise((r) => setTimeout(r, 300));
    const stopped = c.stop();
    await new Promise((r) => setTimeout(r, 300));
    holder.exec('ROLLBACK');
    holder.close();
    assert.equal((await inFlight).code, 0);
    assert.equal(await stopped, 0);
    assert.ok(storedRows(c.log).length > 0);
  });
});

describe('OTLP/gRPC partial success', () => {
  it('a refused log record: the same ExportLogsServiceResponse over gRPC as over HTTP', async (t) => {
    const dir = tempDir('collector-grpc-');
    const config = resolveCollectorConfig({ flags: { port: 0, grpcPort: await freePort(), log: join(dir, 'events.db') } }, { HOME: dir });
    const service = await startCollectorService(config, pino({ level: 'silent' }));
    t.after(() => service.stop());
    const original = sanitize.sanitizeRecord;
    t.mock.method(sanitize, 'sanitizeRecord', (record: BeaconRecord, field?: Parameters<typeof original>[1]) => {
      if (record.event.action === 'security.finding') throw new BeaconError('bad_data', `event ${record.event.action} cannot be stored`);
      return original(record, field);
    });
    const turn = newTurn('partial_1');
    const body = encodeLogs([promptInjectionFinding(turn, { callId: 'toolu_p1', findingId: 'SEC-p1', command: 'rm -rf /', confidence: 0.95 }), toolCallCompleted(turn, 'shell')]);
    const viaHttp = Buffer.from(await (await fetch(`${service.url}/v1/logs`, { method: 'POST', body, headers: PB })).arrayBuffer());
    const viaGrpc = await grpcExport(service.grpc.health().address!, 'logs', body);
    assert.equal(viaGrpc.code, 0);
    assert.ok(viaHttp.length > 2, 'partial_success is set');
    assert.deepEqual(viaGrpc.response, viaHttp);
    assert.equal(service.grpc.health().rejectedLogRecords, 1);
  });
});
