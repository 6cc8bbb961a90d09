/**
 * What an always-on daemon costs a user (issue 25), each figure beside its baseline measured in the
 * same run: the collector's RSS idle, with its threads up and after work, against a bare Node process
 * with two empty worker threads (the floor for a Node daemon with a writer and a checkpointer thread);
 * an export's latency while the dashboard's tokens page loads in a loop, against the same exports
 * without; and the read commands on a 40k-event log against a bare `node -e 0`, interleaved.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { BEACON_BIN, repoRoot, tempDir } from '../test/helpers/paths';
import { startCollector, type RunningCollector } from '../test/helpers/daemon';
import { buildLog } from './dashboard';
import { benchCacheDir, gooseExportTemplate, stampIds } from './fixture';
import { median, memoryMb } from './measure';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rssMb = (pid: number) => memoryMb(pid).rss;

const { body, idOffsets } = gooseExportTemplate(100);
let counter = 50_000_000;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One 100-span goose export over a keep-alive socket; resolves with its latency in ms. */
function exportOnce(url: string): Promise<number> {
  const payload = stampIds(body, idOffsets, counter++);
  const u = new URL(url);
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: '/v1/traces', method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': payload.length } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t) : reject(new Error(`export: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** RSS of a bare Node process idle, and with two idle worker threads (what the writer and checkpointer threads cost before any code). */
async function nodeFloor(): Promise<{ bare: number; twoWorkers: number }> {
  const measure = async (code: string) => {
    const p = spawn(process.execPath, ['-e', code], { stdio: 'ignore' });
    await sleep(1500);
    const mb = rssMb(p.pid!);
    p.kill();
    return mb;
  };
  const worker = "new (require('node:worker_threads').Worker)('setInterval(() => {}, 1000)', { eval: true });";
  return { bare: await measure('setInterval(() => {}, 1000)'), twoWorkers: await measure(`${worker}${worker}setInterval(() => {}, 1000)`) };
}

/** The Node options the service files run the collector with (systemd/beacon-collector.service's ExecStart, the plist's the same). */
export function serviceNodeArgs(): string[] {
  const unit = readFileSync(join(repoRoot(), 'systemd', 'beacon-collector.service'), 'utf8');
  const between = /^ExecStart="\{\{NODE\}\}"(.*?)"\{\{BEACON\}\}"/m.exec(unit)?.[1] ?? '';
  return between.split(/\s+/).filter(Boolean);
}

/**
 * The design card's floor: the libraries the collector loads at start (fastify with a pino logger,
 * an @grpc/grpc-js server, protobufjs, better-sqlite3 with a WAL log open), both ports listening,
 * no Beacon code, with the service's Node options; and the same with one worker thread holding a
 * SQLite connection (the writer's floor). What no code of ours can go below on this stack.
 */
async function designCardFloor(nodeArgs: string[]): Promise<{ libs: number; libsWriter: number }> {
  const dir = tempDir('bench-floor-');
  const writer = `const D = require('better-sqlite3'); new D(${JSON.stringify(join(dir, 'floor.db'))}); setInterval(() => {}, 1000)`;
  const code = (withWriter: boolean) => `
    const Database = require('better-sqlite3');
    new Database(${JSON.stringify(join(dir, 'floor.db'))}).pragma('journal_mode = WAL');
    require('protobufjs');
    const app = require('fastify')({ loggerInstance: require('pino')({ level: 'info' }, require('node:fs').createWriteStream('/dev/null')) });
    app.post('/v1/traces', async () => ({}));
    app.listen({ port: 0, host: '127.0.0.1' });
    const grpc = require('@grpc/grpc-js');
    new grpc.Server().bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), () => {});
    ${withWriter ? `new (require('node:worker_threads').Worker)(${JSON.stringify(writer)}, { eval: true });` : ''}`;
  const measure = async (withWriter: boolean) => {
    const p = spawn(process.execPath, [...nodeArgs, '-e', code(withWriter)], { cwd: repoRoot(), stdio: ['ignore', 'ignore', 'inherit'] });
    await sleep(2500);
    const mb = rssMb(p.pid!);
    p.kill();
    return mb;
  };
  return { libs: await measure(false), libsWriter: await measure(true) };
}

async function collectorRss(nodeArgs: string[]): Promise<{ idle: number; threadsUp: number; afterWork: number; settled: number }> {
  const c = await startCollector({ nodeArgs });
  await sleep(1500);
  const idle = rssMb(c.proc.pid!);
  await exportOnce(c.url);
  await sleep(3000);
  const threadsUp = rssMb(c.proc.pid!);
  for (let i = 0; i < 20; i++) await exportOnce(c.url);
  await sleep(3000);
  const afterWork = rssMb(c.proc.pid!);
  // V8's memory reducer collects the work's garbage once allocation has stopped for ~8 s.
  await sleep(9000);
  const settled = rssMb(c.proc.pid!);
  await c.stop();
  return { idle, threadsUp, afterWork, settled };
}

async function idleFootprint(): Promise<Record<string, number>> {
  const floor = await nodeFloor();
  const flags = serviceNodeArgs();
  const card = await designCardFloor(flags);
  const byHand = await collectorRss([]);
  const service = await collectorRss(flags);
  const line = (r: typeof byHand) => `idle ${r.idle.toFixed(1)} MB, threads up ${r.threadsUp.toFixed(1)} MB, after 20 exports and 3 s idle ${r.afterWork.toFixed(1)} MB, 12 s idle ${r.settled.toFixed(1)} MB`;
  console.log(
    `footprint: collector RSS as the service runs it (node ${flags.join(' ')}) ${line(service)}; run by hand (no Node options) ${line(byHand)}; ` +
      `floor in this run: bare node ${floor.bare.toFixed(1)} MB, bare node + 2 empty worker threads ${floor.twoWorkers.toFixed(1)} MB; ` +
      `the design card's libraries loaded and listening, no Beacon code, ${card.libs.toFixed(1)} MB, with one SQLite worker thread ${card.libsWriter.toFixed(1)} MB`,
  );
  return {
    footprintIdleRssMb: service.idle, threadsUpRssMb: service.threadsUp, afterWorkRssMb: service.afterWork, afterWorkSettledRssMb: service.settled,
    byHandIdleRssMb: byHand.idle, byHandThreadsUpRssMb: byHand.threadsUp, byHandAfterWorkRssMb: byHand.afterWork,
    bareNodeRssMb: floor.bare, bareNodeTwoWorkersRssMb: floor.twoWorkers, designCardFloorRssMb: card.libs, designCardWriterFloorRssMb: card.libsWriter,
  };
}

/** The dashboard in use: a separate process loading every page in turn, as fast as they answer, until killed. */
const PAGE_LOOP = `
const pages = ['/', '/sessions', '/events', '/tokens', '/session?id=2026000077', '/events?q=module17.rs', '/tokens?since=7d&bucket=hour'];
(async () => { for (let i = 0; ; i++) { const t = performance.now(); const r = await fetch(process.argv[1] + pages[i % pages.length], { headers: { accept: 'text/html' } }); await r.arrayBuffer(); if (r.status !== 200) process.exit(2); process.stdout.write(String(performance.now() - t) + '\\n'); } })();`;

/** Exports one after another for `ms` (one every 20 ms at most), while the dashboard is in use or not. */
async function exportsFor(c: RunningCollector, ms: number, withPages: boolean): Promise<{ latencies: number[]; pages: number[] }> {
  const latencies: number[] = [];
  const pages: number[] = [];
  const loop = withPages ? spawn(process.execPath, ['-e', PAGE_LOOP, c.url], { stdio: ['ignore', 'pipe', 'inherit'] }) : undefined;
  loop?.stdout!.on('data', (d: Buffer) => pages.push(...String(d).trim().split('\n').map(Number)));
  if (loop) await sleep(300);
  const end = performance.now() + ms;
  while (performance.now() < end) {
    latencies.push(await exportOnce(c.url));
    await sleep(20);
  }
  loop?.kill();
  return { latencies, pages };
}

async function exportDuringDashboard(log: string): Promise<Record<string, number>> {
  const c = await startCollector({ log, nodeArgs: serviceNodeArgs() });
  await exportsFor(c, 1500, true); // warm: the threads and the query thread
  const alone: number[] = [];
  const loaded: number[] = [];
  const pages: number[] = [];
  for (let round = 0; round < 3; round++) {
    alone.push(...(await exportsFor(c, 2500, false)).latencies);
    const r = await exportsFor(c, 2500, true);
    loaded.push(...r.latencies);
    pages.push(...r.pages);
  }
  await c.stop();
  const r = { exportAloneP50Ms: median(alone), exportDuringPagesP50Ms: median(loaded), pageP50Ms: median(pages) };
  console.log(
    `an export during page loads (40k-event log; another process loads 7 pages in turn, ${pages.length} loads of p50 ${r.pageP50Ms.toFixed(0)} ms; 3 interleaved rounds of 2.5 s): ` +
      `p50 ${r.exportDuringPagesP50Ms.toFixed(1)} ms vs ${r.exportAloneP50Ms.toFixed(1)} ms alone = ${(r.exportDuringPagesP50Ms / r.exportAloneP50Ms).toFixed(2)}×`,
  );
  return r;
}

export function readCommands(log: string): Record<string, number> {
  // A user's home: goose's plugin and OTLP settings installed, so doctor reads config.yaml and runs the hook launcher, as it does for a user.
  const home = tempDir('bench-read-');
  const installed = spawnSync(process.execPath, [BEACON_BIN, 'install', 'goose', '--configure-otlp', '--log', log], { env: { ...process.env, HOME: home }, encoding: 'utf8' });
  if (installed.status !== 0) throw new Error(`beacon install goose: ${installed.stderr}`);
  const commands: [string, string[]][] = [
    ['doctor', ['doctor', '--log', log]],
    ['token-usage --by day', ['token-usage', '--by', 'day', '--log', log]],
    ['sessions', ['sessions', '--log', log]],
    ['events --limit 50', ['events', '--limit', '50', '--log', log]],
  ];
  // A command that failed would time its error path: each run must exit as the first one did, and that one answer.
  const time = (args: string[]) => {
    const t = performance.now();
    const r = spawnSync(process.execPath, args, { env: { ...process.env, HOME: home }, encoding: 'utf8' });
    const ms = performance.now() - t;
    // doctor exits 1 with its report when a check fails (no collector runs here); anything else is an error.
    const ok = r.status === 0 || (args[1] === 'doctor' && r.status === 1 && r.stdout.includes('event-log'));
    if (args[0] !== '-e' && (!ok || r.stdout.length === 0)) throw new Error(`beacon ${args.slice(1).join(' ')} exited ${r.status}: ${r.stderr}`);
    return ms;
  };
  // doctor runs the hook launcher as goose does (a second Node.js start): timed alone, it is the part
  // of doctor's time that no change to doctor can take away.
  const launcher = join(home, '.beacon', 'endpoint', 'bin', 'beacon-hooks');
  const timeLauncher = () => {
    const t = performance.now();
    const r = spawnSync('sh', ['-c', `'${launcher}' --version`], { env: { ...process.env, HOME: home }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${launcher} --version: ${r.stderr}`);
    return performance.now() - t;
  };
  const bare: number[] = [];
  const launcherRuns: number[] = [];
  const runs = commands.map(() => [] as number[]);
  for (let round = 0; round < 7; round++) {
    bare.push(time(['-e', '0']));
    launcherRuns.push(timeLauncher());
    commands.forEach(([, args], i) => runs[i]!.push(time([BEACON_BIN, ...args])));
  }
  const out: Record<string, number> = { readBareNodeP50Ms: median(bare), launcherVersionP50Ms: median(launcherRuns) };
  const parts = commands.map(([name], i) => {
    const ms = median(runs[i]!);
    out[`read_${name.split(' ')[0]!.replace('-', '_')}_ratio`] = ms / out.readBareNodeP50Ms!;
    return `${name} ${ms.toFixed(0)} ms = ${(ms / out.readBareNodeP50Ms!).toFixed(2)}×`;
  });
  console.log(`read commands on a 40k-event log, goose installed in the home (7 interleaved rounds, medians) vs bare node -e 0 ${out.readBareNodeP50Ms!.toFixed(0)} ms: ${parts.join('; ')}`);
  console.log(`  the hook launcher doctor runs (sh -c 'beacon-hooks --version', as goose would): ${out.launcherVersionP50Ms!.toFixed(0)} ms alone = ${(out.launcherVersionP50Ms! / out.readBareNodeP50Ms!).toFixed(2)}× bare node; bare node + it = ${((out.readBareNodeP50Ms! + out.launcherVersionP50Ms!) / out.readBareNodeP50Ms!).toFixed(2)}×`);
  return out;
}

export async function benchFootprint(): Promise<Record<string, number>> {
  const log = join(benchCacheDir(), '40k-v1.db');
  // The pages' windows are relative to now: a log built more than a day ago is rebuilt. Runs write to a copy.
  if (existsSync(log) && Date.now() - statSync(log).mtimeMs > 86_400_000) for (const f of [log, `${log}-wal`, `${log}-shm`]) if (existsSync(f)) unlinkSync(f);
  if (!existsSync(log)) buildLog(log, Date.now(), 40_000, 80);
  const copy = join(tempDir('bench-40k-'), 'events.db');
  copyFileSync(log, copy);
  return { ...(await idleFootprint()), ...(await exportDuringDashboard(copy)), ...readCommands(log) };
}
