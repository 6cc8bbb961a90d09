/**
 * "A month of heavy use" beside ccusage (issue 31 item 4): the month of month-of-use.ts (100k model
 * calls by default, half Claude Code's transcripts, half Codex's rollouts), then, in the same run and
 * on the same files: ccusage's daily report, Beacon's first import, a re-import of the unchanged
 * files, and `beacon token-usage --by day` afterwards, each as a ratio of ccusage's report.
 * Both tools' tokens per day and model are checked against the month's truth, so the race is on
 * the same answer.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { benchCacheDir } from './fixture';
import { insertFloor, parseFloor } from './import-floors';
import { median } from './measure';
import { generateMonth } from './month-of-use';
import type { Truth } from './month-lines';
import { beaconReportCells, CCUSAGE_BIN, ccusageReportCells, type Buckets } from '../test/helpers/ccusage-compare';
import { BEACON_BIN, tempDir } from '../test/helpers/paths';

/** Bump when the generator's output changes: the cached month is then written again. */
const GENERATOR_VERSION = 1;
const SEED = 20261101;

type Cells = Map<string, Buckets>;

function month(calls: number): { home: string; truth: Truth; files: number; bytes: number } {
  const home = join(benchCacheDir(), `month-v${GENERATOR_VERSION}-${calls}-${SEED}`);
  const done = join(home, 'month.json');
  if (!existsSync(done)) {
    rmSync(home, { recursive: true, force: true });
    const t = performance.now();
    const m = generateMonth(home, { calls, seed: SEED });
    writeFileSync(done, JSON.stringify({ truth: [...m.truth], files: m.files, bytes: m.bytes }));
    console.log(`generated a month of ${calls.toLocaleString('en-US')} model calls (Claude Code ${m.calls.claude.toLocaleString('en-US')}, Codex ${m.calls.codex.toLocaleString('en-US')}) in ${m.files.toLocaleString('en-US')} session files, ${(m.bytes / 1048576).toFixed(0)} MB, in ${((performance.now() - t) / 1000).toFixed(1)} s (${home}, reused by later runs)`);
  }
  const saved = JSON.parse(readFileSync(done, 'utf8'));
  return { home, truth: new Map(saved.truth), files: saved.files, bytes: saved.bytes };
}

/** CPU seconds of this process's waited-for children (/proc/self/stat cutime + cstime, in clock ticks): a child's CPU time, all its threads. */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** One command, its wall time and its CPU time (on a shared 2-core machine the CPU time is the steadier figure). */
function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv): { ms: number; cpuMs: number; stdout: string } {
  const cpu = childrenCpuMs();
  const t = performance.now();
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return { ms, cpuMs: childrenCpuMs() - cpu, stdout: r.stdout };
}

/** Cells that hold the truth's four buckets (and reasoning, when `reasoning`), of all the truth's cells. */
function agreement(truth: Truth, cells: Cells, reasoning: boolean): string {
  let ok = 0;
  for (const [key, t] of truth) {
    const c = cells.get(key);
    if (c && c.input === t.input && c.output === t.output && c.cacheRead === t.cacheRead && c.cacheWrite === t.cacheWrite && (!reasoning || c.reasoning === t.reasoning)) ok++;
  }
  return `${ok} of ${truth.size} day×model cells${cells.size > truth.size ? ` (and ${cells.size - truth.size} cells the month does not hold)` : ''}`;
}

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export function benchImport(calls: number): Record<string, number> {
  if (!existsSync(CCUSAGE_BIN)) {
    console.log(`a month of heavy use beside ccusage: skipped (${CCUSAGE_BIN} missing: npm ci --prefix test/agents)`);
    return {};
  }
  const m = month(calls);
  const empty = tempDir('bench-month-empty-home-');
  const ccEnv = { PATH: process.env.PATH, HOME: empty, TZ: 'UTC', NO_COLOR: '1', CLAUDE_CONFIG_DIR: join(m.home, '.claude'), CODEX_HOME: join(m.home, '.codex') };
  const cc = () => timed(CCUSAGE_BIN, ['daily', '--json', '--offline', '-z', 'UTC'], ccEnv);
  const logDir = tempDir('bench-month-log-');
  try {
    return race(m, cc, join(logDir, 'events.db'), empty);
  } finally {
    rmSync(logDir, { recursive: true, force: true }); // half a gigabyte at 100k calls
    rmSync(empty, { recursive: true, force: true });
  }
}

/** The same run's steps, each beside ccusage's report, printed, and returned as the bench's figures. */
function race(m: ReturnType<typeof month>, cc: () => ReturnType<typeof timed>, log: string, empty: string): Record<string, number> {
  const calls = [...m.truth.values()].reduce((n, c) => n + c.calls, 0);
  const ccRuns = [cc(), cc(), cc()]; // the first also brings the files into the page cache, for both tools alike
  const ccMs = median(ccRuns.map((x) => x.ms));
  const ccCpu = median(ccRuns.map((x) => x.cpuMs));
  const bEnv = { ...process.env, HOME: empty, TZ: 'UTC' };
  const beacon = (args: string[]) => timed(process.execPath, [BEACON_BIN, ...args], bEnv);
  const first = beacon(['import', '--from', m.home, '--log', log]);
  // the same first import in one thread (BEACON_IMPORT_THREADS=0), into a log of its own: what the reading threads bring
  const oneLog = `${log}.one-thread.db`;
  const oneThread = timed(process.execPath, [BEACON_BIN, 'import', '--from', m.home, '--log', oneLog], { ...bEnv, BEACON_IMPORT_THREADS: '0' });
  for (const f of [oneLog, `${oneLog}-wal`, `${oneLog}-shm`]) rmSync(f, { force: true });
  const parse = parseFloor(m.home);
  const insert = insertFloor(log, dirname(log));
  const again = beacon(['import', '--from', m.home, '--log', log]);
  const usage = [0, 1, 2, 3, 4].map(() => beacon(['token-usage', '--by', 'day', '--log', log]));
  const usageMs = median(usage.map((u) => u.ms));
  const usageCpu = median(usage.map((u) => u.cpuMs));
  const report = beacon(['token-usage', '--by', 'day', '--breakdown', '--utc', '--json', '--log', log]).stdout;
  const added = [...again.stdout.matchAll(/added ([\d,]+) events/g)].reduce((n, x) => n + Number(x[1]!.replace(/,/g, '')), 0); // per agent and month
  const r = {
    monthCalls: calls, monthFiles: m.files, monthMb: m.bytes / 1048576,
    ccusageDailyMs: ccMs, ccusageDailyCpuMs: ccCpu, firstImportMs: first.ms, firstImportCpuMs: first.cpuMs, reimportMs: again.ms, reimportCpuMs: again.cpuMs,
    monthTokenUsageMs: usageMs, monthTokenUsageCpuMs: usageCpu,
    firstImportRatio: first.ms / ccMs, reimportRatio: again.ms / ccMs, monthTokenUsageRatio: usageMs / ccMs,
    firstImportOneThreadMs: oneThread.ms, firstImportOneThreadCpuMs: oneThread.cpuMs, parseFloorMs: parse.ms, insertFloorMs: insert.ms,
    firstImportCpuRatio: first.cpuMs / ccCpu, reimportCpuRatio: again.cpuMs / ccCpu, monthTokenUsageCpuRatio: usageCpu / ccCpu,
  };
  const both = (ms: number, cpu: number, goal: string) => `${s(ms)} wall, ${s(cpu)} CPU = ${(ms / ccMs).toFixed(2)}× ccusage's wall time, ${(cpu / ccCpu).toFixed(2)}× its CPU time (goal ${goal})`;
  console.log(`a month of heavy use: ${calls.toLocaleString('en-US')} model calls, ${m.files.toLocaleString('en-US')} session files (Claude Code transcripts, Codex rollouts), ${r.monthMb.toFixed(0)} MB; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]} on this machine's cores`);
  console.log(`  ${ccusageVersion()} daily --json: ${s(ccMs)} wall, ${s(ccCpu)} CPU (medians of ${ccRuns.map((x) => s(x.ms)).join(', ')}); its tokens hold the truth in ${agreement(m.truth, ccusageReportCells(JSON.parse(ccRuns[1]!.stdout)), false)}`);
  console.log(`  beacon import, first: ${both(first.ms, first.cpuMs, '≤ 2×')}`);
  console.log(`    the same import in one thread (BEACON_IMPORT_THREADS=0): ${both(oneThread.ms, oneThread.cpuMs, 'none: the baseline of the threads')}; the threads' import took ${(first.ms / oneThread.ms).toFixed(2)}× its wall time`);
  console.log(`    floors, whatever the importer (one thread, in this process): reading and JSON.parse of all ${parse.count.toLocaleString('en-US')} lines ${s(parse.ms)} wall, ${s(parse.cpuMs)} CPU = ${(parse.ms / ccMs).toFixed(2)}× ccusage's wall time; writing the import's ${insert.count.toLocaleString('en-US')} rows into the events table with no index or trigger (2,000-row transactions) ${s(insert.ms)} wall, ${s(insert.cpuMs)} CPU = ${(insert.ms / ccMs).toFixed(2)}×; the two = ${((parse.ms + insert.ms) / ccMs).toFixed(2)}× ccusage's wall time, ${((parse.cpuMs + insert.cpuMs) / ccCpu).toFixed(2)}× its CPU time`);
  console.log(`  beacon import again, files unchanged: ${both(again.ms, again.cpuMs, '≤ 0.2×')}; added ${added.toLocaleString('en-US')} events`);
  console.log(`  beacon token-usage --by day afterwards: ${both(usageMs, usageCpu, '≤ 0.1×')} (median of 5); its tokens hold the truth in ${agreement(m.truth, beaconReportCells(report), true)}`);
  return r;
}

function ccusageVersion(): string {
  return spawnSync(CCUSAGE_BIN, ['--version'], { encoding: 'utf8' }).stdout.trim();
}
