/**
 * Load generator, run as its own process so it does not share the daemon's event loop.
 * Closed loop (`--rate 0`): `--connections` requests always in flight. Open loop (`--rate R`):
 * R exports per second on a fixed schedule, latency measured from the scheduled send.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { deepKvlist, emptySpansBody, ld } from '../test/helpers/wire';
import { gooseExportTemplate, stampIds } from './fixture';

const { values } = parseArgs({ options: { url: { type: 'string' }, seconds: { type: 'string' }, connections: { type: 'string' }, rate: { type: 'string' }, start: { type: 'string' }, mode: { type: 'string' } } });
const url = new URL(values.url!);
const seconds = Number(values.seconds ?? 10);
const connections = Number(values.connections ?? 8);
const rate = Number(values.rate ?? 0);
let counter = Number(values.start ?? 1);

// goose: 100-span goose exports; large: ~1.4 MB exports (2,300 spans); malformed: bodies that must be refused
const mode = values.mode ?? 'goose';
const { body, idOffsets } = gooseExportTemplate(mode === 'large' ? 2300 : 100);
const malformed = mode === 'malformed' ? malformedBodies(body) : [];
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const latencies: number[] = [];
let ok = 0;
let failed = 0;
const statuses: Record<string, number> = {};

function send(scheduled: number): Promise<void> {
  const bad = malformed.length ? malformed[counter % malformed.length] : undefined;
  const payload = bad ? bad.body : stampIds(body, idOffsets, counter);
  counter++;
  return new Promise((resolve) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: '/v1/traces', method: 'POST', agent, headers: { 'content-type': bad?.type ?? 'application/x-protobuf', 'content-length': payload.length } },
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
      statuses.error = (statuses.error ?? 0) + 1;
      failed++;
      resolve();
    });
    req.end(payload);
  });
}

/** The bombs: 4 million empty spans (8 MiB), 3,000-deep kvlists, bit-flipped and truncated exports. */
function malformedBodies(template: Buffer): { body: Buffer; type: string }[] {
  const pb = 'application/x-protobuf';
  const flipped = Buffer.from(template);
  for (let i = 0; i < flipped.length; i += 97) flipped[i]! ^= 0x5a;
  const deep = deepKvlist(3000);
  return [
    { body: emptySpansBody(4_000_000), type: pb },
    { body: Buffer.from(`{"resourceSpans":[{"resource":{"attributes":[{"key":"deep","value":${deep.json}}]}}]}`), type: 'application/json' },
    { body: ld(1, ld(1, ld(1, Buffer.concat([ld(1, Buffer.from('deep')), ld(2, deep.proto)])))), type: pb },
    { body: flipped, type: pb },
    { body: template.subarray(0, template.length >> 1), type: pb },
  ];
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
