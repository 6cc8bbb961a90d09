import assert from 'node:assert/strict';
import http from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { gooseExportTemplate } from '../../bench/fixture';
import { gooseDefaultLoopTurn, hex } from '../helpers/goose-spans';
import { jsonl, runBeacon, startCollector, type RunningCollector } from '../helpers/daemon';
import { traceRequest } from '../helpers/otlp-json';
import { tempDir } from '../helpers/paths';
import { deepKvlist, emptySpansBody, ld, rssMb } from '../helpers/wire';

const JSON_TYPE = { 'content-type': 'application/json' };
const PB_TYPE = { 'content-type': 'application/x-protobuf' };
const post = (url: string, body: Buffer | string, headers: Record<string, string>) => fetch(url, { method: 'POST', body, headers });
const sessions = (c: RunningCollector, id: string) => jsonl(runBeacon(['events', '--log', c.log, '--json', '--session', id]).stdout);

describe('receiver: bad input costs neither good data nor memory', () => {
  let c: RunningCollector;
  before(async () => {
    c = await startCollector(); // default limits
  });
  after(async () => {
    assert.equal(await c.stop(), 0);
  });

  it('a JSON startTimeUnixNano of 1e30 is 400 naming the field, not a 500; the export with it in range is stored', async () => {
    const turn = gooseDefaultLoopTurn({ sessionId: 'time_1e30' });
    const text = JSON.stringify(traceRequest(turn.spans)).replace(`"startTimeUnixNano":"${turn.spans[0]!.start}"`, '"startTimeUnixNano":1e30');
    assert.ok(text.includes('1e30'));
    const r = await post(`${c.url}/v1/traces`, text, JSON_TYPE);
    assert.equal(r.status, 400);
    assert.match(((await r.json()) as { message: string }).message, /startTimeUnixNano .*64-bit integer range/);
    const ok = await post(`${c.url}/v1/traces`, JSON.stringify(traceRequest(turn.spans)), JSON_TYPE);
    assert.equal(ok.status, 200);
    assert.equal(sessions(c, 'time_1e30').length, 4);
  });

  it('3,000-deep kvlists in resource attributes or a non-GenAI span: 400 naming the depth limit, both encodings', async () => {
    const deep = deepKvlist(3000);
    const turn = gooseDefaultLoopTurn({ sessionId: 'deep_1' });
    const base = traceRequest(turn.spans) as { resourceSpans: { resource: { attributes: unknown[] }; scopeSpans: { spans: { attributes: unknown[] }[] }[] }[] };
    const marker = '"@@DEEP@@"';
    const inResource = structuredClone(base);
    inResource.resourceSpans[0]!.resource.attributes.push({ key: 'deep', value: '@@DEEP@@' });
    const inSpan = structuredClone(base);
    // a span that is not GenAI at all, beside goose's
    inSpan.resourceSpans[0]!.scopeSpans[0]!.spans.push({ traceId: hex(16), spanId: hex(8), name: 'plain', attributes: [{ key: 'deep', value: '@@DEEP@@' }] } as never);
    for (const req of [inResource, inSpan]) {
      const r = await post(`${c.url}/v1/traces`, JSON.stringify(req).replace(marker, deep.json), JSON_TYPE);
      assert.equal(r.status, 400);
      assert.match(((await r.json()) as { message: string }).message, /nested deeper than 16 levels \(the limit\)/);
    }
    // protobuf: the same value in resource attributes and in a span's attributes
    const kvBytes = Buffer.concat([ld(1, Buffer.from('deep')), ld(2, deep.proto)]);
    const kv = ld(1, kvBytes); // Resource.attributes = 1
    const spanKv = ld(9, kvBytes); // Span.attributes = 9
    const inResourcePb = ld(1, Buffer.concat([ld(1, kv), ld(2, ld(2, Buffer.alloc(0)))]));
    const inSpanPb = ld(1, ld(2, ld(2, Buffer.concat([ld(5, Buffer.from('plain')), spanKv]))));
    for (const body of [inResourcePb, inSpanPb]) {
      const r = await post(`${c.url}/v1/traces`, body, PB_TYPE);
      assert.equal(r.status, 400);
      assert.equal(r.headers.get('content-type'), 'application/x-protobuf');
      assert.match(Buffer.from(await r.arrayBuffer()).toString('latin1'), /nested deeper than \d+ levels/);
    }
    assert.equal((await fetch(`${c.url}/health`)).status, 200);
  });

  it('a span-count bomb (8 MiB protobuf of 4 million empty spans) is 413 naming the limit; memory stays bounded', async () => {
    const before = rssMb(c.proc.pid!).rss;
    const r = await post(`${c.url}/v1/traces`, emptySpansBody(4_000_000), PB_TYPE);
    assert.equal(r.status, 413);
    assert.match(Buffer.from(await r.arrayBuffer()).toString('latin1'), /4000000 spans, more than the limit of 10000 per export \(maxItemsPerExport\)/);
    // the same as JSON: refused before JSON.parse builds 4 million objects
    const json = `{"resourceSpans":[{"scopeSpans":[{"spans":[${Array(4_000_000).fill('{}').join(',')}]}]}]}`;
    const rj = await post(`${c.url}/v1/traces`, json, JSON_TYPE);
    assert.equal(rj.status, 413);
    // one span with 4 million empty attributes: under the span limit, but it could never be decoded within the in-flight budget
    const attrs = Buffer.alloc(8_000_000);
    for (let i = 0; i < 4_000_000; i++) attrs[2 * i] = 0x4a;
    const ra = await post(`${c.url}/v1/traces`, ld(1, ld(2, ld(2, attrs))), PB_TYPE);
    assert.equal(ra.status, 413);
    assert.match(Buffer.from(await ra.arrayBuffer()).toString('latin1'), /in-flight limit \(maxBytesInFlight\)/);
    const { hwm } = rssMb(c.proc.pid!);
    assert.ok(hwm < before + 250, `peak RSS ${hwm.toFixed(0)} MB (was ${before.toFixed(0)} MB before the bombs)`);
    // below the limit, empty spans are an ordinary export
    assert.equal((await post(`${c.url}/v1/traces`, emptySpansBody(5000), PB_TYPE)).status, 200);
    const turn = gooseDefaultLoopTurn({ sessionId: 'after_bomb' });
    assert.equal((await post(`${c.url}/v1/traces`, JSON.stringify(traceRequest(turn.spans)), JSON_TYPE)).status, 200);
    assert.equal(sessions(c, 'after_bomb').length, 4);
  });
});

describe('receiver: oversized bodies and admission by bytes', () => {
  let c: RunningCollector;
  let holder: Database.Database | undefined;
  before(async () => {
    const cfg = join(tempDir(), 'config.json');
    writeFileSync(cfg, JSON.stringify({ collector: { maxBodyBytes: 1024 * 1024, maxBytesInFlight: 1.5 * 1024 * 1024, busyTimeoutMs: 8000 } }));
    c = await startCollector({ args: ['--config', cfg] });
  });
  after(async () => {
    holder?.close();
    assert.equal(await c.stop(), 0);
  });

  it('a body over the limit always gets 413, never a reset (fetch without Expect: 100-continue, 24 times)', async () => {
    // 8 MiB against a 1 MiB limit: answered before the body was read, 15 in 20 of these were EPIPE/ECONNRESET
    const big = Buffer.alloc(8 * 1024 * 1024, 0x20);
    const statuses: (number | string)[] = [];
    for (let i = 0; i < 24; i++) {
      try {
        const r = await post(`${c.url}/v1/traces`, big, i % 2 ? JSON_TYPE : PB_TYPE);
        statuses.push(r.status);
        await r.arrayBuffer();
      } catch (e) {
        statuses.push(String((e as { cause?: { code?: string } }).cause?.code ?? e));
      }
    }
    assert.deepEqual(statuses, Array(24).fill(413));
    // chunked (no Content-Length), as the OTel JS exporters send
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${c.url}/v1/traces`, { method: 'POST', headers: PB_TYPE }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      for (let i = 0; i < 48; i++) req.write(Buffer.alloc(64 * 1024));
      req.end();
    });
    assert.equal(chunked, 413);
  });

  it('exports beyond maxBytesInFlight get 429 + Retry-After while the first waits; an export that could never fit gets 413', async () => {
    const { body } = gooseExportTemplate(100); // ~0.95 MiB in flight once decoded
    holder = new Database(c.log);
    holder.exec('BEGIN IMMEDIATE'); // the first export now waits for the log, holding its bytes
    const first = post(`${c.url}/v1/traces`, body, PB_TYPE);
    let health: { bytes_in_flight: number } = { bytes_in_flight: 0 };
    for (let i = 0; i < 100 && health.bytes_in_flight === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      health = (await (await fetch(`${c.url}/health`)).json()) as typeof health;
    }
    assert.ok(health.bytes_in_flight > 500_000, JSON.stringify(health));
    const second = await post(`${c.url}/v1/traces`, gooseExportTemplate(100).body, PB_TYPE);
    assert.equal(second.status, 429);
    assert.equal(second.headers.get('retry-after'), '1');
    assert.match(Buffer.from(await second.arrayBuffer()).toString('latin1'), /in flight \(limit 1\.5 MiB, maxBytesInFlight\)/);
    holder.exec('ROLLBACK');
    holder.close();
    holder = undefined;
    assert.equal((await first).status, 200);
    const again = await post(`${c.url}/v1/traces`, gooseExportTemplate(100).body, PB_TYPE);
    assert.equal(again.status, 200, 'the budget was returned');
    const tooBig = await post(`${c.url}/v1/traces`, gooseExportTemplate(200).body, PB_TYPE);
    assert.equal(tooBig.status, 413);
    const h = (await (await fetch(`${c.url}/health`)).json()) as { bytes_in_flight: number };
    assert.equal(h.bytes_in_flight, 0);
  });
});
