import assert from 'node:assert/strict';
import net from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { buildCollectorHttp, type CollectorHttp } from '../../src/collector/http';
import { EventLogWriter } from '../../src/store/writer/event-log-writer';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { traceRequest } from '../helpers/otlp-json';
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
