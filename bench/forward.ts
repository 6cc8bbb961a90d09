/**
 * Forwarding: records/s drained from a backlog to each transport (OTLP/HTTP to a local sink that
 * acknowledges every request; RFC 5425 syslog to a real rsyslog with mutual TLS), and what live
 * forwarding costs ingest: the collector's spans/s with and without forwarding, alternating phases
 * in the same run.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { EventLog } from '../src/store/log/event-log';
import { beaconRows } from '../test/helpers/beacon-rows';
import { makeCerts } from '../test/helpers/certs';
import { startCollector, type RunningCollector } from '../test/helpers/daemon';
import { tempDir } from '../test/helpers/paths';
import { startRsyslog } from '../test/helpers/rsyslog';

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** An OTLP/HTTP endpoint that reads each request and answers 200 with an empty body (full success). */
async function sink(): Promise<{ url: string; requests: () => number; close(): void }> {
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => n, close: () => server.close() };
}

const forwardOf = async (c: RunningCollector) => ((await (await fetch(`${c.url}/health`)).json()) as { forward: { name: string; state: string; lagRecords: number; forwarded: number }[] }).forward;

interface Load { spansPerSec: number; exportsPerSec: number; failed: number; nextCounter: number; p50: number; p99: number }

function loadgen(url: string, seconds: number, start: number, rate = 0): Promise<Load> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [join(__dirname, 'loadgen.js'), '--url', url, '--seconds', String(seconds), '--connections', rate ? '32' : '8', '--start', String(start), '--rate', String(rate)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout!.on('data', (d) => (out += d));
    p.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim())) : reject(new Error(`loadgen exited ${code}`))));
  });
}

export async function benchForward(backlog = 30_000): Promise<Record<string, number>> {
  const dir = tempDir('bench-forward-');
  const certs = makeCerts(dir);
  const rs = await startRsyslog(join(dir, 'rs'), certs);
  const otlp = await sink();
  const results: Record<string, number> = {};
  const dests = {
    otlp: { name: 'otlp', type: 'otlp', endpoint: otlp.url, from: 'start', batchDelayMs: 200 },
    syslog: { name: 'syslog', type: 'syslog', address: `127.0.0.1:${rs.port}`, tls: { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey }, from: 'start', batchDelayMs: 200 },
  };
  const config = (list: unknown[]) => {
    const f = join(dir, `c-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(f, JSON.stringify({ collector: { forward: list } }));
    return f;
  };

  // 1. Draining a backlog, one transport at a time.
  for (const kind of ['otlp', 'syslog'] as const) {
    const log = join(dir, `${kind}.db`);
    const l = EventLog.open(log);
    for (let i = 0; i < backlog; i += 5000) l.append(beaconRows(5000, `${kind}-${i}`));
    l.close();
    const t0 = performance.now();
    const c = await startCollector({ log, args: ['--config', config([dests[kind]])] });
    for (;;) {
      const [f] = await forwardOf(c);
      if (f && f.state !== 'starting' && f.lagRecords === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const secs = (performance.now() - t0) / 1000;
    await c.stop();
    results[`forward_${kind}_records_per_sec`] = backlog / secs;
  }
  console.log(`forwarding a ${fmt(backlog)}-event backlog: OTLP/HTTP (protobuf, gzip, 512/batch) ${fmt(results.forward_otlp_records_per_sec!)} records/s; syslog RFC 5425 (mutual TLS, rsyslog writing a file) ${fmt(results.forward_syslog_records_per_sec!)} records/s (collector start included)`);

  // 2. What live forwarding costs ingest: the same collector load without and with both destinations
  //    forwarding live, first saturated (closed loop), then at a third of that rate (open loop).
  let counter = 1;
  const phase = async (on: boolean, rate: number) => {
    const c = await startCollector({ args: on ? ['--config', config([{ ...dests.otlp, from: 'end' }, { ...dests.syslog, from: 'end' }])] : [] });
    await new Promise((r) => setTimeout(r, 500));
    const r = await loadgen(c.url, 6, counter, rate);
    counter = r.nextCounter;
    let lag = 0;
    if (on) {
      lag = Math.max(...(await forwardOf(c)).map((f) => f.lagRecords));
    }
    await c.stop();
    return { ...r, lag };
  };
  const satOff = await phase(false, 0);
  const satOn = await phase(true, 0);
  const rate = Math.max(1, Math.round(satOff.exportsPerSec / 3));
  const lowOff = await phase(false, rate);
  const lowOn = await phase(true, rate);
  results.ingest_spans_per_sec_without_forwarding = satOff.spansPerSec;
  results.ingest_spans_per_sec_with_forwarding = satOn.spansPerSec;
  results.ingest_ratio_with_forwarding = satOn.spansPerSec / satOff.spansPerSec;
  results.ingest_p99_ms_third_load_without = lowOff.p99;
  results.ingest_p99_ms_third_load_with = lowOn.p99;
  results.forward_lag_after_third_load = lowOn.lag;
  console.log(`ingest saturated (8 connections, 6 s): ${fmt(satOn.spansPerSec)} spans/s with both destinations forwarding live vs ${fmt(satOff.spansPerSec)} without = ${fmt(results.ingest_ratio_with_forwarding, 2)}× (forward lag at the end: ${fmt(satOn.lag)} events)`);
  console.log(`ingest at a third of that (${rate} exports/s, open loop): p99 ${fmt(lowOn.p99, 1)} ms with forwarding vs ${fmt(lowOff.p99, 1)} ms without (p50 ${fmt(lowOn.p50, 1)} vs ${fmt(lowOff.p50, 1)}); forward lag at the end: ${fmt(lowOn.lag)} events`);
  otlp.close();
  await rs.stop();
  return results;
}
