import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import { gooseDefaultLoopTurn, gooseStateMachineTurn, hex } from '../helpers/goose-spans';
import { jsonl, runBeacon, startCollector, type RunningCollector } from '../helpers/daemon';
import { traceRequest } from '../helpers/otlp-json';
import { repoRoot, tempDir } from '../helpers/paths';

const root = protobuf.loadSync(join(repoRoot(), 'proto', 'otlp.proto'));
const Status = root.lookupType('beacon.otlp.RpcStatus');
const TraceResponse = root.lookupType('beacon.otlp.ExportTraceServiceResponse');

function curl(args: string[]): { status: number; headers: string; body: Buffer } {
  const dir = tempDir('curl-');
  const out = join(dir, 'body');
  const r = spawnSync('curl', ['-sS', '-o', out, '-D', '-', '-w', '%{http_code}', ...args]);
  assert.equal(r.status, 0, `curl failed: ${r.stderr}`);
  const text = r.stdout.toString();
  const status = Number(text.slice(-3));
  let body = Buffer.alloc(0);
  try {
    body = require('node:fs').readFileSync(out);
  } catch {
    /* no body */
  }
  return { status, headers: text.slice(0, -3).toLowerCase(), body };
}

function post(url: string, body: Buffer | string, headers: Record<string, string>) {
  return fetch(url, { method: 'POST', body, headers });
}

function events(c: RunningCollector, extra: string[] = []) {
  const r = runBeacon(['events', '--log', c.log, '--json', ...extra]);
  assert.equal(r.status, 0, r.stderr);
  return jsonl(r.stdout);
}

describe('collector over a real socket', () => {
  let c: RunningCollector;
  before(async () => {
    // debug level: every per-export and refused-export log line is printed, so the no-content check below sees them all
    c = await startCollector({ args: ['--max-body-bytes', String(4 * 1024 * 1024)], env: { BEACON_LOG_LEVEL: 'debug' } });
  });
  after(async () => {
    assert.equal(await c.stop(), 0);
  });

  it('prints one ready line with its loopback address and the event log', () => {
    const ready = c.lines.map((l) => JSON.parse(l)).filter((j) => j.msg === 'collector ready');
    assert.equal(ready.length, 1);
    assert.match(ready[0].address, /^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('curl: a goose turn as OTLP/JSON lands as 4 events with harness goose, method otlp and disjoint usage', () => {
    const turn = gooseDefaultLoopTurn({ sessionId: 'curl_json_1' });
    const file = join(tempDir(), 'turn.json');
    writeFileSync(file, JSON.stringify(traceRequest(turn.spans)));
    const r = curl(['-X', 'POST', '-H', 'Content-Type: application/json', '--data-binary', `@${file}`, `${c.url}/v1/traces`]);
    assert.equal(r.status, 200);
    assert.match(r.headers, /content-type: application\/json\r\n/);
    assert.deepEqual(JSON.parse(r.body.toString()), {});
    const evs = events(c, ['--session', 'curl_json_1']);
    assert.deepEqual(evs.map((e) => e.event.action), ['model.invoked', 'command.executed', 'tool.failed', 'model.invoked']);
    for (const e of evs) assert.deepEqual([e.harness.name, e.harness.collection_method], ['goose', 'otlp']);
    assert.deepEqual(evs[0].gen_ai.usage, { input_tokens: 140, output_tokens: 212, cache_read: { input_tokens: 11200 }, cache_creation: { input_tokens: 1500 } });
    assert.equal(evs[0].reasoning.text, 'Run the tests first.');
    assert.equal(evs[0].content.hash.length, 64);
  });

  it('curl: a protobuf body encoded by protoc (an independent encoder) is decoded exactly', () => {
    const bin = execFileSync('protoc', ['-I', 'proto', '--encode=beacon.otlp.ExportTraceServiceRequest', 'proto/otlp.proto'], {
      cwd: repoRoot(),
      input: require('node:fs').readFileSync(join(repoRoot(), 'test', 'fixtures', 'goose-chat-span.txtpb')),
    });
    const file = join(tempDir(), 'chat.pb');
    writeFileSync(file, bin);
    const r = curl(['-X', 'POST', '-H', 'Content-Type: application/x-protobuf', '--data-binary', `@${file}`, `${c.url}/v1/traces`]);
    assert.equal(r.status, 200);
    assert.match(r.headers, /content-type: application\/x-protobuf\r\n/);
    assert.equal(r.body.length, 0, 'full success leaves partial_success unset');
    const [e] = events(c, ['--session', '20260821_3']).filter((x) => x.trace.span_id === 'a1b2c3d4e5f60718');
    assert.ok(e, 'event stored');
    assert.equal(e.trace.id, '4bf92f3577b34da6a3ce929d0e0e4736');
    assert.equal(e.trace.parent_span_id, '00f067aa0ba902b7');
    assert.equal(e.timestamp, '2026-08-21T08:30:00.000000000Z');
    assert.equal(e.model, 'claude-sonnet-4-5-20250929');
    assert.equal(e.gen_ai.provider.name, 'anthropic');
    assert.equal(e.gen_ai.response.id, 'msg_01XFDUDYJgAACzvnptvVoYEL');
    assert.deepEqual(e.gen_ai.response.finish_reasons, ['tool_use']);
    assert.deepEqual(e.gen_ai.usage, { input_tokens: 140, output_tokens: 212, cache_read: { input_tokens: 11200 }, cache_creation: { input_tokens: 1500 } });
    assert.equal(e.reasoning.text, 'Run the tests first.');
    assert.equal(e.raw.attributes['gen_ai.request.seed'], '-9007199254740993', 'int64 beyond 2^53 kept exactly');
  });

  it('a retried export adds nothing', async () => {
    const turn = gooseDefaultLoopTurn({ sessionId: 'retry_1' });
    const body = JSON.stringify(traceRequest(turn.spans));
    for (let i = 0; i < 3; i++) assert.equal((await post(`${c.url}/v1/traces`, body, { 'content-type': 'application/json' })).status, 200);
    assert.equal(events(c, ['--session', 'retry_1']).length, 4);
  });

  it('gzip and deflate bodies; media type parameters and case are ignored', async () => {
    const turn = gooseDefaultLoopTurn({ sessionId: 'gzip_1' });
    const body = gzipSync(JSON.stringify(traceRequest(turn.spans)));
    const r = await post(`${c.url}/v1/traces`, body, { 'content-type': 'Application/JSON; charset=utf-8', 'content-encoding': 'gzip' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(events(c, ['--session', 'gzip_1']).length, 4);
    const turn2 = gooseStateMachineTurn({ sessionId: 'deflate_1' });
    const r2 = await post(`${c.url}/v1/traces`, require('node:zlib').deflateSync(JSON.stringify(traceRequest(turn2.spans))), { 'content-type': 'application/json', 'content-encoding': 'deflate' });
    assert.equal(r2.status, 200);
    assert.equal(events(c, ['--session', 'deflate_1']).length, 2);
  });

  it('a gzip bomb gets 413 with a google.rpc.Status in the request encoding, and the daemon stays up', async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    assert.ok(bomb.length < 100 * 1024);
    const r = await post(`${c.url}/v1/traces`, bomb, { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    assert.equal(r.status, 413);
    assert.equal(r.headers.get('content-type'), 'application/x-protobuf');
    const st = Status.toObject(Status.decode(Buffer.from(await r.arrayBuffer()))) as { code: number; message: string };
    assert.equal(st.code, 3);
    assert.match(st.message, /after decompression/);
    assert.equal((await fetch(`${c.url}/health`)).status, 200);
  });

  it('a raw body over the limit gets 413', async () => {
    const r = await post(`${c.url}/v1/traces`, Buffer.alloc(5 * 1024 * 1024, 0x20), { 'content-type': 'application/json' });
    assert.equal(r.status, 413);
    assert.equal(((await r.json()) as any).code, 3);
  });

  it('garbage bodies get 400 with a clear message, in the request encoding', async () => {
    const pb = await post(`${c.url}/v1/traces`, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'content-type': 'application/x-protobuf' });
    assert.equal(pb.status, 400);
    const st = Status.decode(Buffer.from(await pb.arrayBuffer())) as unknown as { code: number; message: string };
    assert.equal(st.code, 3);
    assert.match(st.message, /invalid protobuf/);
    const js = await post(`${c.url}/v1/traces`, '1234', { 'content-type': 'application/json' });
    assert.equal(js.status, 400);
    assert.deepEqual(Object.keys((await js.json()) as any), ['code', 'message']);
    const notJson = await post(`${c.url}/v1/traces`, '{"resourceSpans":[', { 'content-type': 'application/json' });
    assert.equal(notJson.status, 400);
    const badId = await post(`${c.url}/v1/traces`, JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'abc', spanId: 'eee19b7ec3c1b174' }] }] }] }), { 'content-type': 'application/json' });
    assert.equal(badId.status, 400);
    assert.match(((await badId.json()) as any).message, /traceId must be 32 hex digits/);
    const badGzip = await post(`${c.url}/v1/traces`, '{}', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    assert.equal(badGzip.status, 400);
    const br = await post(`${c.url}/v1/traces`, '{}', { 'content-type': 'application/json', 'content-encoding': 'br' });
    assert.equal(br.status, 400);
    assert.match(((await br.json()) as any).message, /unsupported Content-Encoding: br/);
  });

  it('the status table: 415, 405, 404, empty 200, metrics and logs 200', async () => {
    assert.equal((await post(`${c.url}/v1/traces`, 'x', { 'content-type': 'text/plain' })).status, 415);
    const noType = curl(['-X', 'POST', '-H', 'Content-Type:', '--data-binary', 'x', `${c.url}/v1/traces`]);
    assert.equal(noType.status, 415);
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const r = await fetch(`${c.url}/v1/metrics`, { method });
      assert.equal(r.status, 405, method);
      assert.match(((await r.json()) as any).message, /supported: \[POST\]/);
    }
    assert.equal((await post(`${c.url}/v2/traces`, '{}', { 'content-type': 'application/json' })).status, 404);
    const rootPost = await post(`${c.url}/`, '{}', { 'content-type': 'application/json' });
    assert.equal(rootPost.status, 404);
    assert.match(((await rootPost.json()) as any).message, /append \/v1\/traces/);
    for (const type of ['application/json', 'application/x-protobuf']) {
      for (const path of ['/v1/traces', '/v1/metrics', '/v1/logs']) {
        const r = await post(`${c.url}${path}`, Buffer.alloc(0), { 'content-type': type });
        assert.equal(r.status, 200, `${type} ${path}`);
      }
    }
    const metrics = { resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'goose.tool_calls', sum: { dataPoints: [{ asInt: '3', timeUnixNano: '1787301000000000000' }, { asInt: '1' }], aggregationTemporality: 2, isMonotonic: true } }] }] }] };
    assert.equal((await post(`${c.url}/v1/metrics`, JSON.stringify(metrics), { 'content-type': 'application/json' })).status, 200);
    const logs = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1787301000000000000', body: { stringValue: 'x' }, traceId: '4bf92f3577b34da6a3ce929d0e0e4736' }] }] }] };
    assert.equal((await post(`${c.url}/v1/logs`, JSON.stringify(logs), { 'content-type': 'application/json' })).status, 200);
    const health = (await (await fetch(`${c.url}/health`)).json()) as any;
    assert.ok(health.metricPoints >= 2 && health.logRecords >= 1, JSON.stringify(health));
  });

  it('partial success: invalid spans are rejected with a count and a message, valid ones stored', async () => {
    const good = { name: 'chat', traceId: hex(16), spanId: hex(8), start: 1787301000000000000n, end: 1787301001000000000n, attributes: { 'gen_ai.operation.name': 'chat', 'session.id': 'partial_1', 'gen_ai.usage.input_tokens': 10 } };
    const bad = { ...good, spanId: hex(8), attributes: { ...good.attributes, 'gen_ai.usage.input_tokens': 'lots' } };
    const r = await post(`${c.url}/v1/traces`, JSON.stringify(traceRequest([good, bad])), { 'content-type': 'application/json' });
    assert.equal(r.status, 200);
    const body = (await r.json()) as any;
    assert.equal(body.partialSuccess.rejectedSpans, '1');
    assert.match(body.partialSuccess.errorMessage, /input_tokens must be a non-negative integer/);
    assert.equal(events(c, ['--session', 'partial_1']).length, 1);
    // the same in protobuf
    const pbReq = root.lookupType('beacon.otlp.ExportTraceServiceRequest');
    const msg = pbReq.fromObject({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.from(hex(16), 'hex'), spanId: Buffer.from(hex(8), 'hex'), attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }, { key: 'gen_ai.usage.output_tokens', value: { doubleValue: 1.5 } }] }] }] }] });
    const pr = await post(`${c.url}/v1/traces`, Buffer.from(pbReq.encode(msg).finish()), { 'content-type': 'application/x-protobuf' });
    assert.equal(pr.status, 200);
    const decoded = TraceResponse.toObject(TraceResponse.decode(Buffer.from(await pr.arrayBuffer())), { longs: Number }) as { partialSuccess: { rejectedSpans: number } };
    assert.equal(decoded.partialSuccess.rejectedSpans, 1);
  });

  it('JSON integers above 2^53 keep their precision', async () => {
    const req = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174","name":"x","kind":"SPAN_KIND_CLIENT","startTimeUnixNano":1796009437048942507,"endTimeUnixNano":"1796009437048942600","unknownField":{"a":1},"attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},{"key":"session.id","value":{"stringValue":"bigint_1"}},{"key":"big","value":{"intValue":9007199254740993}}]}]}]}]}`;
    assert.equal((await post(`${c.url}/v1/traces`, req, { 'content-type': 'application/json' })).status, 200);
    const [e] = events(c, ['--session', 'bigint_1']);
    assert.equal(e.timestamp, '2026-11-30T03:30:37.048942507Z');
    assert.equal(e.raw.attributes.big, '9007199254740993');
    assert.equal(e.raw.span_kind, 3);
    assert.equal(e.trace.id, '5b8efff798038103d269b633813fc60c');
  });

  it('a wrapper chat span exported after its child is not counted again', async () => {
    const turn = gooseStateMachineTurn({ sessionId: 'wrapper_1' });
    const [inner, chat, ...rest] = turn.spans;
    for (const batch of [[inner!], [chat!], rest]) {
      assert.equal((await post(`${c.url}/v1/traces`, JSON.stringify(traceRequest(batch)), { 'content-type': 'application/json' })).status, 200);
    }
    const evs = events(c, ['--session', 'wrapper_1']);
    assert.deepEqual(evs.map((e) => e.event.action), ['model.invoked', 'command.executed']);
  });

  it('beacon events prints a readable table by default', () => {
    const r = runBeacon(['events', '--log', c.log, '--session', 'curl_json_1']);
    assert.equal(r.status, 0);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0]!, /^TIME\s+HARNESS\s+SEEN BY\s+ACTION\s+RESULT/);
    assert.equal(lines.length, 5);
    assert.match(lines[1]!, /goose\s+otlp\s+model\.invoked\s+curl_json_1\s+anthropic claude-sonnet-4-5-20250929 · 4\.2 s\s+140\/212\/11200\/1500/);
    assert.match(lines[2]!, /command\.executed.*cargo test/);
  });

  it('logs carry no content: no prompt, command or reasoning text in the daemon output', () => {
    const all = c.lines.join('\n');
    assert.ok(c.lines.some((l) => JSON.parse(l).msg === 'export'), 'per-export debug lines were logged');
    assert.ok(c.lines.some((l) => JSON.parse(l).msg === 'export refused'), 'refused-export lines were logged');
    for (const secret of ['cargo test', 'Run the tests first', 'fix the failing test']) assert.ok(!all.includes(secret), secret);
  });
});
