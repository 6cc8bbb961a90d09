/**
 * Load generator, run as its own process so it does not share the daemon's event loop.
 * Closed loop (`--rate 0`): `--connections` requests always in flight. Open loop (`--rate R`):
 * R exports per second on a fixed schedule, latency measured from the scheduled send.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { gooseExportTemplate, stampIds } from './fixture';

const { values } = parseArgs({ options: { url: { type: 'string' }, seconds: { type: 'string' }, connections: { type: 'string' }, rate: { type: 'string' }, start: { type: 'string' } } });
const url = new URL(values.url!);
const seconds = Number(values.seconds ?? 10);
const connections = Number(values.connections ?? 8);
const rate = Number(values.rate ?? 0);
let counter = Number(values.start ?? 1);

const { body, idOffsets } = gooseExportTemplate(100);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const latencies: number[] = [];
let ok = 0;
let failed = 0;
const statuses: Record<string, number> = {};

function send(scheduled: number): Promise<void> {
  const payload = stampIds(body, idOffsets, counter++);
  return new Promise((resolve) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: '/v1/traces', method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': payload.length } },
      (res) => {
        res.resume();
        res.on('end', () => {
          statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
          if (res.statusCode === 200) {
            ok++;
            latencies.push(performance.now() - scheduled);
          } else failed++;
          resolve();
        });
      },
    );
    req.on('error', () => {
      failed++;
      resolve();
    });
    req.end(payload);
  });
}

async function main() {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  if (rate === 0) {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < deadline) await send(performance.now());
      }),
    );
  } else {
    const interval = 1000 / rate;
    const inflight: Promise<void>[] = [];
    for (let i = 0; ; i++) {
      const at = started + i * interval;
      if (at >= deadline) break;
      const wait = at - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inflight.push(send(at));
    }
    await Promise.all(inflight);
  }
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? NaN;
  process.stdout.write(JSON.stringify({ ok, failed, statuses, elapsed, exportsPerSec: ok / elapsed, spansPerSec: (ok * 100) / elapsed, p50: pct(0.5), p99: pct(0.99), nextCounter: counter }) + '\n');
  agent.destroy();
}
void main();
