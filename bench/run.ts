/**
 * `npm run bench`: collector throughput, latency and memory over a real socket, with the in-process
 * ceilings it is bounded by measured in the same run (so figures read as ratios on a noisy machine).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { spanEvents } from '../src/sources/dispatch';
import { EventLog } from '../src/store/log/event-log';
import { INSERT_EVENT_SQL, runInsert } from '../src/store/log/columns';
import { decodeProtoTraces } from '../src/receiver/signals/traces';
import { toRows } from '../src/ingest/rows';
import { limitRecordUnredacted } from '../src/redact/sanitize';
import { redactString } from '../src/redact/secrets';
import { NEAR_MISSES, SECRET_SHAPES } from '../test/helpers/secret-corpus';
import { startCollector } from '../test/helpers/daemon';
import { tempDir } from '../test/helpers/paths';
import { gooseExportTemplate, stampIds } from './fixture';
import { benchHookLauncher, benchHooks } from './hooks';
import { benchTokenUsage } from './token-usage';
import { benchReadCommands } from './read-commands';
import { benchFollow } from './follow';
import { benchLogs } from './logs';
import { benchDurability, benchRetention, benchWriterDurability } from './store';
import { benchForward } from './forward';
import { benchDashboard } from './dashboard';
import { benchAgents } from './agents';
import { benchImport } from './import';
import { benchRedactImport } from './redact-import';
import { benchGrpc } from './grpc';
import { benchFootprint, serviceNodeArgs } from './footprint';
import { printIssue25Table } from './summary';
import { benchNodeFlags } from './node-flags';
import { memoryMb, rate } from './measure';

// `npm run bench -- import calls=20000`: section names, and `name=value` parameters
const only = process.argv.slice(2).filter((a) => !a.includes('='));
const params = new Map(process.argv.slice(2).filter((a) => a.includes('=')).map((a) => a.split('=', 2) as [string, string]));
const want = (name: string) => only.length === 0 || only.includes(name);

/** CPU seconds (user + system, all threads) a process has used: /proc/PID/stat fields 14 and 15, in clock ticks. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}


function loadgen(url: string, args: string[]) {
  const r = spawnSync(process.execPath, [join(__dirname, 'loadgen.js'), '--url', url, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim()) as { ok: number; failed: number; statuses: Record<string, number>; spansPerSec: number; exportsPerSec: number; p50: number; p99: number; nextCounter: number };
}

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

async function main() {
  const { body, idOffsets, genAiSpans } = gooseExportTemplate(100);
  console.log(`fixture: 100-span goose export, ${fmt(body.length)} bytes protobuf, ${genAiSpans} GenAI spans stored per export`);
  const results: Record<string, number> = {};

  if (want('collector')) {
    // Ceilings: one thread, no HTTP.
    results.decodeSpansPerSec = rate(2, (i) => decodeProtoTraces(stampIds(body, idOffsets, i)).length);
    const pipeline = (unredacted: boolean) => (i: number) => {
      const ex = spanEvents(decodeProtoTraces(stampIds(body, idOffsets, i)));
      if (unredacted) toRows(ex.events, limitRecordUnredacted);
      else toRows(ex.events);
      return 100;
    };
    // Redaction's cost: the same pipeline with limits and markers but no redaction, in alternating
    // slices and counted per CPU-second of this process, so other load on the machine cancels out.
    const cpu = { on: 0, off: 0 };
    const items = { on: 0, off: 0 };
    for (let k = 0; k < 24; k++) {
      const which = k % 2 === 0 ? 'off' : 'on';
      const fn = pipeline(which === 'off');
      const c0 = process.cpuUsage();
      const t = performance.now();
      let n = 0;
      while (performance.now() - t < 150) n += fn(k * 100_000 + n);
      const c = process.cpuUsage(c0);
      if (k >= 4) {
        cpu[which] += (c.user + c.system) / 1e6;
        items[which] += n;
      }
    }
    results.pipelineSpansPerCpuSec = items.on / cpu.on;
    results.pipelineUnredactedSpansPerCpuSec = items.off / cpu.off;
    results.pipelineSpansPerSec = rate(2, pipeline(false));
    const corpus = [...SECRET_SHAPES.map((s) => s.text), ...NEAR_MISSES.map((n) => n.text)];
    results.corpusStringsPerSec = rate(1, () => {
      for (const s of corpus) redactString(s);
      return corpus.length;
    });
    const first = () => spanEvents(decodeProtoTraces(body)).events[0]!;
    const huge = { result: `${'lorem ipsum token dolor key '.repeat(40_000)}password=hunter2hunter2` };
    const t = performance.now();
    for (let k = 0; k < 5; k++) {
      const ev = first();
      ev.record.raw = { ...huge };
      toRows([ev]);
    }
    results.hugeStringSanitizeMs = (performance.now() - t) / 5;
    // the worst shape found for the detectors: a 4 MB prompt of `pass: ` repeated, as primary content
    const hostile = first();
    hostile.record.prompt = { text: 'pass: '.repeat(700_000) };
    const t2 = performance.now();
    toRows([hostile]);
    results.hostileContentSanitizeMs = performance.now() - t2;
    const sample = toRows(spanEvents(decodeProtoTraces(body)).events).rows;
    const log = EventLog.open(join(tempDir('bench-'), 'insert.db'));
    results.insertRowsPerSec = rate(2, (i) => log.append(sample.map((r, j) => ({ ...r, id: `${i}-${j}`, traceId: `${i}-${r.traceId}` }))).inserted);
    log.close();
    // What the usage rollup's insert trigger costs (schema v5): the same log with the trigger dropped.
    const untriggered = EventLog.open(join(tempDir('bench-'), 'insert-no-trigger.db'));
    untriggered.db.exec('DROP TRIGGER usage_cells_insert');
    results.insertNoTriggerRowsPerSec = rate(2, (i) => untriggered.append(sample.map((r, j) => ({ ...r, id: `${i}-${j}`, traceId: `${i}-${r.traceId}` }))).inserted);
    untriggered.close();
    // What the row format costs: SQLite inserting the same values (same columns, same bytes, same
    // binder, one transaction per export) into a plain table with no key, no index and no dedup read.
    const bare = EventLog.open(join(tempDir('bench-'), 'insert-plain.db'));
    bare.db.exec('CREATE TABLE plain AS SELECT * FROM events WHERE 0');
    const plainInsert = bare.db.prepare(INSERT_EVENT_SQL.replace('INSERT OR IGNORE INTO events', 'INSERT INTO plain'));
    const plainAppend = bare.db.transaction((rows: typeof sample) => {
      for (const r of rows) runInsert(plainInsert, r, 1n);
      return rows.length;
    });
    results.insertNoIndexRowsPerSec = rate(2, (i) => plainAppend(sample.map((r, j) => ({ ...r, id: `${i}-${j}`, traceId: `${i}-${r.traceId}` }))));
    bare.close();
    console.log(`redaction: the one-thread pipeline with redaction runs ${fmt(results.pipelineSpansPerCpuSec / results.pipelineUnredactedSpansPerCpuSec, 3)}× as fast as without it (${fmt(results.pipelineSpansPerCpuSec)} vs ${fmt(results.pipelineUnredactedSpansPerCpuSec)} spans per CPU-second); corpus (${SECRET_SHAPES.length} secret shapes + ${NEAR_MISSES.length} near misses) ${fmt(results.corpusStringsPerSec)} strings/s; a 1.1 MB tool result ${fmt(results.hugeStringSanitizeMs, 1)} ms (redacted over its first 10 KiB window); a hostile 4 MB prompt ${fmt(results.hostileContentSanitizeMs, 0)} ms (its first 64 Ki characters)`);
    console.log(`ceilings (one thread): decode ${fmt(results.decodeSpansPerSec)} spans/s; decode+extract+redact ${fmt(results.pipelineSpansPerSec)} spans/s; SQLite insert ${fmt(results.insertRowsPerSec)} rows/s (= ${fmt((results.insertRowsPerSec * 100) / genAiSpans)} spans/s at ${genAiSpans} rows per 100 spans), ${fmt(results.insertRowsPerSec / results.insertNoIndexRowsPerSec, 2)}× SQLite inserting the same values into a plain table, no key or index (${fmt(results.insertNoIndexRowsPerSec)} rows/s); ${fmt(results.insertRowsPerSec / results.insertNoTriggerRowsPerSec, 2)}× the same log without the usage rollup's insert trigger (${fmt(results.insertNoTriggerRowsPerSec)} rows/s)`);
    results.insertCeilingSpansPerSec = (results.insertRowsPerSec * 100) / genAiSpans;

    // As the service runs it (its Node options: a 1 MB young generation).
    const c = await startCollector({ nodeArgs: serviceNodeArgs() });
    await new Promise((r) => setTimeout(r, 1500));
    results.idleRssMb = memoryMb(c.proc.pid!).rss;
    let peak = 0;
    const poll = setInterval(() => (peak = Math.max(peak, memoryMb(c.proc.pid!).rss)), 100);
    const cpu0 = cpuSeconds(c.proc.pid!);
    const wall0 = performance.now();
    const sustained = await new Promise<ReturnType<typeof loadgen>>((resolve) => setImmediate(() => resolve(loadgen(c.url, ['--seconds', '10', '--connections', '8']))));
    // What bounds saturation: the cores the collector got (of the machine's 2) and the machine's load meanwhile.
    results.saturationCollectorCores = (cpuSeconds(c.proc.pid!) - cpu0) / ((performance.now() - wall0) / 1000);
    results.saturationLoadAvg = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
    clearInterval(poll);
    // VmHWM: the poll above cannot run while loadgen's spawnSync blocks this thread.
    results.peakRssMb = Math.max(peak, memoryMb(c.proc.pid!).hwm);
    const walMb = () => (existsSync(`${c.log}-wal`) ? statSync(`${c.log}-wal`).size / 1048576 : 0);
    results.walAfterSaturationMb = walMb();
    const health = (await (await fetch(`${c.url}/health`)).json()) as { checkpoints: { restarts: number; longestRestartMs: number } };
    results.checkpointRestarts = health.checkpoints.restarts;
    results.longestRestartCheckpointMs = health.checkpoints.longestRestartMs;
    results.spansPerSec = sustained.spansPerSec;
    results.p50Ms = sustained.p50;
    results.p99Ms = sustained.p99;
    const half = loadgen(c.url, ['--seconds', '8', '--rate', String(Math.max(1, Math.round(sustained.exportsPerSec / 2))), '--connections', '32', '--start', String(sustained.nextCounter)]);
    results.halfLoadSpansPerSec = half.spansPerSec;
    results.halfP50Ms = half.p50;
    results.halfP99Ms = half.p99;
    // Bad input and overload must cost neither good data nor unbounded memory: peak RSS while the
    // collector refuses bombs (4M-span, 3,000-deep, bit-flipped), and under 64 connections of 1.4 MB exports.
    const phase = (args: string[]) => {
      let phasePeak = memoryMb(c.proc.pid!).rss;
      const p = setInterval(() => (phasePeak = Math.max(phasePeak, memoryMb(c.proc.pid!).rss)), 50);
      const r = loadgen(c.url, args);
      clearInterval(p);
      return { r, peak: Math.max(phasePeak, memoryMb(c.proc.pid!).rss) };
    };
    const bad = phase(['--seconds', '4', '--connections', '8', '--mode', 'malformed']);
    results.malformedPeakRssMb = bad.peak;
    const over = phase(['--seconds', '4', '--connections', '64', '--mode', 'large', '--start', String(half.nextCounter + 1000)]);
    results.overloadPeakRssMb = over.peak;
    results.overloadSpansPerSec = (over.r.ok * 2300) / 4;
    await c.stop();
    console.log(`collector, 8 connections, 10 s: ${fmt(sustained.spansPerSec)} spans/s (${fmt(sustained.exportsPerSec, 1)} exports/s, ${sustained.failed} failed, statuses ${JSON.stringify(sustained.statuses)}), latency p50 ${fmt(sustained.p50, 1)} ms, p99 ${fmt(sustained.p99, 1)} ms`);
    console.log(`  = ${fmt(sustained.spansPerSec / results.decodeSpansPerSec, 2)}× the decode-only ceiling, ${fmt(sustained.spansPerSec / results.pipelineSpansPerSec, 2)}× the one-thread pipeline ceiling, ${fmt(sustained.spansPerSec / results.insertCeilingSpansPerSec, 2)}× the insert ceiling; the collector used ${fmt(results.saturationCollectorCores, 2)} cores meanwhile (load average ${fmt(results.saturationLoadAvg, 1)} on ${cpus().length} cores)`);
    console.log(`collector at half that load (open loop, ${fmt(half.exportsPerSec, 1)} exports/s): ${fmt(half.spansPerSec)} spans/s, p50 ${fmt(half.p50, 1)} ms, p99 ${fmt(half.p99, 1)} ms, ${half.failed} failed`);
    console.log(`collector under malformed input (8 connections, 4 s): peak RSS ${fmt(bad.peak, 1)} MB, statuses ${JSON.stringify(bad.r.statuses)}`);
    console.log(`collector overloaded (64 connections of 1.4 MB exports, 4 s): peak RSS ${fmt(over.peak, 1)} MB, statuses ${JSON.stringify(over.r.statuses)}`);
    console.log(`collector RSS: idle ${fmt(results.idleRssMb, 1)} MB, peak under load ${fmt(results.peakRssMb, 1)} MB; WAL after the saturation phase ${fmt(results.walAfterSaturationMb, 1)} MB (bounded by the checkpoints), log ${fmt(statSync(c.log).size / 1048576, 0)} MB`);
    console.log(`  WAL rewinds: ${results.checkpointRestarts} RESTART checkpoints during saturation, the longest ${fmt(results.longestRestartCheckpointMs, 1)} ms (lock wait included)`);
  }

  if (want('node-flags')) Object.assign(results, await benchNodeFlags());
  if (want('hooks')) Object.assign(results, await benchHooks());
  if (want('hooks')) Object.assign(results, await benchHookLauncher());
  if (want('token-usage')) Object.assign(results, benchTokenUsage());
  // `npm run bench -- read [against=OTHER/dist/src/bin/beacon.js]`: token-usage --by day, sessions and doctor on a real-shaped log
  if (want('token-usage') || only.includes('read')) Object.assign(results, await benchReadCommands(Number(params.get('events') ?? 40_000), Number(params.get('exports') ?? 200), Number(params.get('rounds') ?? 9), params.get('against')));
  if (want('follow')) Object.assign(results, await benchFollow());
  if (want('logs')) Object.assign(results, benchLogs());
  if (want('agents')) Object.assign(results, benchAgents());
  if (want('import')) Object.assign(results, benchImport(Number(params.get('calls') ?? 100_000)));
  // `npm run bench -- redact-import [against=OTHER/dist] [rounds=5]`: the redact stage over a month's import events (needs `import calls=20000` once)
  if (only.includes('redact-import')) Object.assign(results, benchRedactImport(params));
  if (want('grpc')) Object.assign(results, await benchGrpc());
  if (want('durability')) Object.assign(results, benchDurability(), await benchWriterDurability());
  if (want('retention')) Object.assign(results, await benchRetention());
  if (want('forward')) Object.assign(results, await benchForward());
  if (want('dashboard')) Object.assign(results, await benchDashboard());
  if (want('footprint')) Object.assign(results, await benchFootprint());
  printIssue25Table(results);
  console.log(`\nJSON ${JSON.stringify(results)}`);
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
