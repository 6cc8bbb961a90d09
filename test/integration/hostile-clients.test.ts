import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { buildCollectorHttp, type CollectorHttp } from '../../src/collector/http';
import { startOtlpGrpc, type OtlpGrpcReceiver } from '../../src/receiver/grpc';
import { gooseExportTemplate } from '../../bench/fixture';
import { EventLogWriter } from '../../src/store/writer/event-log-writer';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { traceRequest } from '../helpers/otlp-json';
import { declareGrpcMessage, grpcExport } from '../helpers/grpc-client';
import { freePort } from '../helpers/ports';
import { runBeacon } from '../helpers/daemon';
import { tempDir } from '../helpers/paths';

/**
 * Issue 22 items 6 and 7, with real sockets: a local user's connections that promise big bodies and
 * trickle them must not hold the in-flight budget, and a Content-Length no body will ever fill is a
 * clean 413.
 */
const MIB = 1 << 20;

/** Opens a socket and sends request headers declaring `length` body bytes (and nothing more). */
function declare(port: number, length: number | string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.write(`POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`);
      resolve(s);
    });
    s.once('error', reject);
  });
}

/** Everything the server sends until it closes the socket (or `ms` pass). */
function answer(s: net.Socket, ms = 5000): Promise<{ text: string; closedAfterMs: number; reset: boolean }> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    let text = '';
    let reset = false;
    const timer = setTimeout(() => resolve({ text, closedAfterMs: Infinity, reset }), ms);
    s.on('data', (d) => (text += d.toString('latin1')));
    s.on('error', () => (reset = true));
    s.once('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - t0, reset });
    });
  });
}

describe('hostile clients on the OTLP port (issue 22 items 6, 7)', () => {
  let writer: EventLogWriter;
  let http: CollectorHttp;
  let port: number;
  const body = JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: 'loris' }).spans));

  before(async () => {
    writer = await EventLogWriter.start({ path: join(tempDir('loris-'), 'events.db'), busyTimeoutMs: 1000 });
    http = buildCollectorHttp({
      sink: writer, logger: pino({ level: 'silent' }), maxBodyBytes: 20 * MIB, maxPendingExports: 64, maxItemsPerExport: 10_000,
      maxBytesInFlight: 100 * MIB, bodyStallMs: 1000, bodyDeadlineMs: 2500,
    });
    await http.app.listen({ host: '127.0.0.1', port: 0 });
    port = (http.app.server.address() as net.AddressInfo).port;
  });
  after(async () => {
    await http.close();
    await writer.close();
  });

  // Fails on main: the seven declared 20 MiB each up front (140 MiB > 100 MiB), so the real export got 429.
  it('item 6: seven connections declaring 20 MiB and trickling hold no budget; a real export is answered 200; the trickle is cut at the deadline', async () => {
    const lorises = await Promise.all(Array.from({ length: 7 }, () => declare(port, 20 * MIB)));
    const answers = lorises.map((s) => answer(s, 6000));
    const trickle = setInterval(() => lorises.forEach((s) => s.writable && s.write('{')), 300);
    try {
      await new Promise((r) => setTimeout(r, 400));
      const held = http.inFlight().bytes;
      const r = await fetch(`http://127.0.0.1:${port}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      assert.equal(r.status, 200, await r.text());
      assert.ok(held < 1024, `the tricklers hold ${held} bytes of the budget`);
      const cut = await Promise.all(answers);
      const slowest = Math.max(...cut.map((a) => a.closedAfterMs));
      // deadline 2.5 s (checked every 250 ms): every trickler is cut well before the 6 s wait ends
      assert.ok(slowest < 4000, `tricklers cut after ${slowest} ms`);
      console.log(`# item 6: 7 tricklers held ${held} B of the 100 MiB budget; real export 200; tricklers cut after ${Math.min(...cut.map((a) => a.closedAfterMs))}–${slowest} ms (deadline 2500 ms)`);
    } finally {
      clearInterval(trickle);
      lorises.forEach((s) => s.destroy());
    }
    await new Promise((r) => setTimeout(r, 100)); // the reservations go back on each reply's 'close'
    assert.equal(http.inFlight().bytes, 0);
  });

  it('item 6: a body that stalls (headers, then nothing) is cut after the stall timeout', async () => {
    const s = await declare(port, 1000);
    s.write('{"resourceSpans"');
    const a = await answer(s, 5000);
    assert.ok(a.closedAfterMs >= 900 && a.closedAfterMs < 2500, `stalled body cut after ${a.closedAfterMs} ms`);
    console.log(`# item 6: stalled body cut after ${a.closedAfterMs} ms (stall timeout 1000 ms)`);
  });

  // Fails on main: 500 "Cannot access 'onData' before initialization".
  it('item 7: Content-Length 10^12 or 2^53 with no body is a clean 413, and the connection closes', async () => {
    for (const length of ['1000000000000', String(2 ** 53)]) {
      const s = await declare(port, length);
      const a = await answer(s, 5000);
      assert.match(a.text, /^HTTP\/1\.1 413 /, a.text);
      assert.match(a.text, /exceeds the limit of 20971520 bytes \(maxBodyBytes\)/);
      assert.doesNotMatch(a.text, /onData/);
      assert.ok(a.closedAfterMs < 1500, `closed after ${a.closedAfterMs} ms`);
    }
    const ok = await fetch(`http://127.0.0.1:${port}/health`);
    assert.equal(ok.status, 200);
  });
});

describe('hostile clients on the OTLP/gRPC port (issue 29 item 4)', () => {
  let writer: EventLogWriter;
  let http: CollectorHttp;
  let grpc: OtlpGrpcReceiver;
  let address: string;
  const sessions: http2.ClientHttp2Session[] = [];
  // The client's own session memory (10 MB by default) must not be what limits the attack.
  const connect = () => {
    const s = http2.connect(`http://${address}`, { maxSessionMemory: 1000 });
    s.on('error', () => {});
    sessions.push(s);
    return s;
  };

  before(async () => {
    writer = await EventLogWriter.start({ path: join(tempDir('grpc-loris-'), 'events.db'), busyTimeoutMs: 1000 });
    const limits = { maxBodyBytes: 20 * MIB, maxPendingExports: 64, maxItemsPerExport: 10_000 };
    http = buildCollectorHttp({ sink: writer, logger: pino({ level: 'silent' }), ...limits, maxBytesInFlight: 8 * MIB });
    const port = await freePort();
    grpc = await startOtlpGrpc({
      host: '127.0.0.1', port, sink: writer, logger: pino({ level: 'silent' }), ...limits,
      budget: http.receiver.budget, totals: http.receiver.stats, bodyStallMs: 1000, bodyDeadlineMs: 2500,
    });
    address = `127.0.0.1:${grpc.port}`;
  });
  after(async () => {
    sessions.forEach((s) => s.destroy());
    await grpc.stop();
    await http.close();
    await writer.close();
  });

  // Fails on main: grpc-js buffered the messages outside the budget (it stayed at 0) and never cut them.
  it('seven streams declaring 20 MB and trickling hold what arrived of the budget, and are cut at the deadline; the budget comes back', async () => {
    const session = connect();
    const lorises = Array.from({ length: 7 }, () => declareGrpcMessage(session, 20_000_000, 512 * 1024, 6000));
    const trickle = setInterval(() => lorises.forEach((l) => l.trickle()), 300);
    try {
      await new Promise((r) => setTimeout(r, 500));
      const held = http.inFlight().bytes;
      assert.ok(held >= 7 * 512 * 1024 && held < 8 * 512 * 1024, `the tricklers hold ${held} bytes of the budget`);
      const cut = await Promise.all(lorises.map((l) => l.answer));
      const slowest = Math.max(...cut.map((a) => a.closedAfterMs));
      assert.ok(slowest < 4000, `streams cut after ${slowest} ms`);
      for (const a of cut) {
        assert.equal(a.grpcStatus, 3, JSON.stringify(a)); // INVALID_ARGUMENT, then RST_STREAM(NO_ERROR)
        assert.match(a.grpcMessage!, /request message not complete after 2500 ms: stream reset/);
        assert.equal(a.rstCode, http2.constants.NGHTTP2_NO_ERROR);
      }
      console.log(`# issue 29 item 4: 7 gRPC tricklers held ${held} B of the 8 MiB budget; cut after ${Math.min(...cut.map((a) => a.closedAfterMs))}–${slowest} ms (deadline 2500 ms)`);
    } finally {
      clearInterval(trickle);
    }
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(http.inFlight().bytes, 0, 'the budget is returned as each stream closes');
    const { body } = gooseExportTemplate(10);
    assert.equal((await grpcExport(address, 'trace', body)).code, 0, 'a real export is served after');
  });

  // Fails on main: the stalled stream stayed open.
  it('a stream that stalls (a length prefix, some bytes, then nothing) is cut after the stall time', async () => {
    const stalled = declareGrpcMessage(connect(), 1_000_000, 1000, 5000);
    const a = await stalled.answer;
    assert.ok(a.closedAfterMs >= 900 && a.closedAfterMs < 2500, `stalled stream cut after ${a.closedAfterMs} ms`);
    assert.match(a.grpcMessage ?? '', /no byte for 1000 ms/);
    console.log(`# issue 29 item 4: stalled gRPC stream cut after ${a.closedAfterMs} ms (stall timeout 1000 ms)`);
  });

  // Fails on main: the held bytes were not counted, so the export was served (here: INVALID_ARGUMENT for its zeros).
  it('past the budget, a message is refused as it arrives: RESOURCE_EXHAUSTED with RetryInfo, its stream reset; a grpc-js client sees the same', async () => {
    const session = connect();
    const holders = Array.from({ length: 6 }, () => declareGrpcMessage(session, 20_000_000, MIB));
    await new Promise((r) => setTimeout(r, 300));
    const held = http.inFlight().bytes;
    assert.ok(held >= 6 * MIB, String(held));
    const raw = declareGrpcMessage(session, 20_000_000, 4 * MIB);
    const refused = await raw.answer;
    assert.deepEqual([refused.grpcStatus, refused.retryDelaySeconds, refused.rstCode], [8, 1, http2.constants.NGHTTP2_NO_ERROR], JSON.stringify(refused));
    assert.match(refused.grpcMessage!, /in flight \(limit 8\.0 MiB, maxBytesInFlight\)/);
    const viaGrpcJs = await grpcExport(address, 'trace', Buffer.alloc(3 * MIB));
    assert.deepEqual([viaGrpcJs.code, viaGrpcJs.retryDelaySeconds], [8, 1], viaGrpcJs.details);
    holders.forEach((h) => h.stream.close());
    await Promise.all(holders.map((h) => h.answer));
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(http.inFlight().bytes, 0);
  });
});

describe('otlpToken: another local user cannot write events (issue 22, "What to build")', () => {
  let writer: EventLogWriter;
  let http: CollectorHttp;
  let url: string;
  const token = 'b'.repeat(40);
  const body = JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: 'tokened' }).spans));

  before(async () => {
    writer = await EventLogWriter.start({ path: join(tempDir('otlp-token-'), 'events.db'), busyTimeoutMs: 1000 });
    http = buildCollectorHttp({ sink: writer, logger: pino({ level: 'silent' }), maxBodyBytes: MIB, maxPendingExports: 64, maxItemsPerExport: 10_000, maxBytesInFlight: 64 * MIB, otlpToken: token });
    await http.app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(http.app.server.address() as net.AddressInfo).port}`;
  });
  after(async () => {
    await http.close();
    await writer.close();
  });

  const post = (headers: Record<string, string>) => fetch(`${url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it('no token, a wrong one, or another scheme: 401 naming otlpToken, nothing stored; the right one (any scheme case): 200', async () => {
    for (const auth of [undefined, `Bearer ${'c'.repeat(40)}`, `Bearer ${token}x`, `Basic ${token}`, token]) {
      const r = await post(auth === undefined ? {} : { authorization: auth });
      assert.equal(r.status, 401, String(auth));
      assert.match(((await r.json()) as { message: string }).message, /otlpToken/);
    }
    assert.equal(http.receiver.stats.exports, 0);
    assert.equal((await post({ authorization: `Bearer ${token}` })).status, 200);
    assert.equal((await post({ authorization: `bearer ${token}` })).status, 200);
    assert.equal(http.receiver.stats.exports, 2);
    // /health and the hook route do not take it (the hook route has its own token)
    assert.equal((await fetch(`${url}/health`)).status, 200);
  });
});

describe('shutdown answers what was sent (issue 22 item 8)', () => {
  /**
   * The client is another process, so it can connect and send while the collector's main thread is
   * busy: the kernel completes the handshake and buffers the request; the connection waits in the
   * listen backlog until the event loop takes it. It prints what each connection got.
   */
  const client = (port: number, body: string, marker: string) => spawn(process.execPath, ['-e', `
    const net = require('node:net');
    const body = ${JSON.stringify(body)};
    const results = [];
    let sent = 0;
    for (let i = 0; i < 16; i++) {
      const s = net.connect(${port}, '127.0.0.1', () => s.write('POST /v1/traces HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\nContent-Length: ' + Buffer.byteLength(body) + '\\r\\n\\r\\n' + body, () => { if (++sent === 16) { require('node:fs').writeFileSync(${JSON.stringify(marker)}, ''); console.error('sent'); } }));
      let text = '';
      s.on('data', (d) => (text += d));
      s.on('error', () => {});
      s.on('close', () => { results.push(/^HTTP\\/1\\.1 (\\d+)/.exec(text)?.[1] ?? 'reset'); if (results.length === 16) console.log(JSON.stringify(results)); });
    }
  `], { stdio: ['ignore', 'pipe', 'pipe'] });

  // Fails on main: the listener closed at once, and the kernel reset every connection still in its backlog (16 of 16).
  it('16 requests wholly sent while the main thread was busy, then the stop: every one answered (200 or 503), none reset; 3 trials', async () => {
    const tally: Record<string, number> = {};
    for (let trial = 0; trial < 3; trial++) {
      const w = await EventLogWriter.start({ path: join(tempDir('term-'), 'events.db'), busyTimeoutMs: 1000 });
      const h = buildCollectorHttp({ sink: w, logger: pino({ level: 'silent' }), maxBodyBytes: MIB, maxPendingExports: 64, maxItemsPerExport: 10_000, maxBytesInFlight: 64 * MIB });
      await h.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (h.app.server.address() as net.AddressInfo).port;
      const marker = join(tempDir('term-sent-'), 'sent');
      const child = client(port, JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: `term_${trial}` }).spans)), marker);
      let out = '';
      let err = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (err += d));
      const exited = new Promise((r) => child.once('exit', r));
      // The main thread busy (as with a large export) while the client connects and sends; then SIGTERM's stop.
      // Busy until the client has handed every request to the kernel (a file it writes then: this thread cannot
      // read its pipe while busy), at least 1.5 s: on a loaded machine the client may take longer than that to
      // send, and a connection made after the stop is refused, which is right, not the fault this test looks for.
      for (const start = Date.now(); Date.now() - start < 1500 || (!existsSync(marker) && Date.now() - start < 30_000););
      assert.ok(existsSync(marker), 'the client sent every request before the stop');
      const closed = h.close();
      await exited;
      await closed;
      await w.close();
      assert.match(err, /sent/, 'the client sent every request before the stop');
      for (const r of JSON.parse(out) as string[]) tally[r] = (tally[r] ?? 0) + 1;
    }
    console.log(`# item 8: of 48 requests wholly sent before the stop: ${JSON.stringify(tally)}`);
    assert.equal(tally.reset ?? 0, 0);
    assert.equal((tally['200'] ?? 0) + (tally['503'] ?? 0), 48);
  });
});

describe('otlpToken: the installers write the header where each agent reads it', () => {
  const token = 'd'.repeat(40);
  const install = (agent: string, home: string) => runBeacon(['install', agent], { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), CODEX_HOME: join(home, '.codex'), CLAUDE_CONFIG_DIR: '', SHELL: '/bin/bash', BEACON_OTLP_TOKEN: token, BEACON_ENDPOINT_LOG: '' });

  it('Claude Code: env.OTEL_EXPORTER_OTLP_HEADERS in its settings (0600), the token shown masked', () => {
    const home = tempDir('tok-home-');
    const r = install('claude-code', home);
    assert.equal(r.status, 0, r.stderr);
    const file = join(home, '.claude', 'settings.json');
    assert.equal(JSON.parse(readFileSync(file, 'utf8')).env.OTEL_EXPORTER_OTLP_HEADERS, `Authorization=Bearer ${token}`);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.ok(!r.stdout.includes(token), r.stdout);
    assert.match(r.stdout, /OTEL_EXPORTER_OTLP_HEADERS = \(with the collector's otlpToken\)/);
  });

  it('Codex: an authorization header on each otlp-http exporter; opencode, Copilot CLI and goose: the environment line, quoted', () => {
    const home = tempDir('tok-home-');
    assert.equal(install('codex', home).status, 0);
    const toml = readFileSync(join(home, '.codex', 'config.toml'), 'utf8');
    assert.equal(toml.split(`Bearer ${token}`).length - 1, 3, toml);
    assert.equal(statSync(join(home, '.codex', 'config.toml')).mode & 0o777, 0o600);
    for (const agent of ['opencode', 'copilot-cli', 'goose']) {
      const r = install(agent, home);
      assert.equal(r.status, 0, r.stderr);
      assert.ok(r.stdout.includes(`export OTEL_EXPORTER_OTLP_HEADERS='Authorization=Bearer ${token}'`), `${agent}: ${r.stdout}`);
    }
  });
});
