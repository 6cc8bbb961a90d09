/**
 * Redaction and limits (`toRows`: the redact stage, then the row) over the events of a month's first import (issue 31),
 * against another build's in the same run: `node dist/bench/redact-import.js [against=OTHER/dist]
 * [month=DIR] [rounds=5]`. The month is bench/import.ts's (`npm run bench -- import calls=20000`
 * makes it); its events, as the readers normalize them, are extracted once into a JSON-lines file
 * beside it. Each round runs each build once in a fresh process over every record, as an import
 * does (a second pass in one process would find every remembered verdict warm), interleaved, and
 * compares the builds' output byte for byte (a SHA-256 over every row and rejection).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NormalizedEvent } from '../src/model/record';
import { claudeCodeStore } from '../src/sources/claude-code/store-claude-code';
import { codexStore } from '../src/sources/codex/store-codex';
import { readSessionFile, sessionFiles } from '../src/sources/store-scan';
import { benchCacheDir } from './fixture';
import { median } from './measure';

const DEFAULT_MONTH = 'month-v1-20000-20261101';

/** JSON with bigints (an event's time), both ways. */
const toJson = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? { bigint: x.toString() } : x));
const fromJson = (s: string) => JSON.parse(s, (_k, x) => (x !== null && typeof x === 'object' && typeof x.bigint === 'string' && Object.keys(x).length === 1 ? BigInt(x.bigint) : x));

/** The month's normalized events, one a line, extracted once. */
function eventsFile(month: string): string {
  const file = `${month}.redact-events.jsonl`;
  if (existsSync(file)) return file;
  if (!existsSync(month)) throw new Error(`${month}: no such month; make it with \`npm run bench -- import calls=20000\``);
  const lines: string[] = [];
  const warn = () => undefined;
  for (const store of [claudeCodeStore, codexStore]) {
    for (const f of sessionFiles(store, store.root(month), warn)) {
      for (const ev of readSessionFile(store, f, warn).events) lines.push(toJson(ev));
    }
  }
  writeFileSync(`${file}.tmp`, lines.join('\n') + '\n');
  renameSync(`${file}.tmp`, file);
  return file;
}

interface WorkerResult {
  cpuMs: number;
  events: number;
  /** SHA-256 over every row (its stored JSON included) and the rejections, in order */
  hash: string;
}

/** One build's toRows over every event, in this process: CPU time of that call only. */
function work(distDir: string, file: string): WorkerResult {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { toRows } = require(join(distDir, 'src/ingest/rows.js')) as typeof import('../src/ingest/rows');
  const events = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => fromJson(l) as NormalizedEvent);
  const t = process.cpuUsage();
  const rows = toRows(events);
  const used = process.cpuUsage(t);
  const h = createHash('sha256');
  for (const r of rows.rows) h.update(toJson(r)).update('\n');
  h.update(toJson(rows.rejected));
  return { cpuMs: (used.user + used.system) / 1000, events: events.length, hash: h.digest('hex') };
}

function runWorker(distDir: string, file: string): WorkerResult {
  const r = spawnSync(process.execPath, [__filename, 'worker', distDir, file], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`worker ${distDir}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim()) as WorkerResult;
}

export function benchRedactImport(params: Map<string, string>): Record<string, number> {
  const month = params.get('month') ?? join(benchCacheDir(), DEFAULT_MONTH);
  const rounds = Number(params.get('rounds') ?? 5);
  const against = params.get('against');
  const file = eventsFile(month);
  const self = join(__dirname, '..');
  const mine: WorkerResult[] = [];
  const theirs: WorkerResult[] = [];
  for (let i = 0; i < rounds; i++) {
    // alternate which build goes first, so a drift in the machine's load falls on both
    const order = i % 2 === 0 ? [self, against] : [against, self];
    for (const d of order) if (d) (d === self ? mine : theirs).push(runWorker(d, file));
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const ms = median(mine.map((r) => r.cpuMs));
  const out: Record<string, number> = { redactImportEvents: mine[0]!.events, redactImportCpuMs: ms };
  let line = `toRows (redaction, limits, rows) over a month's ${mine[0]!.events} import events: ${ms.toFixed(0)} ms CPU (median of ${rounds}, one fresh process each: ${mine.map((r) => r.cpuMs.toFixed(0)).join(', ')})`;
  if (against) {
    const before = median(theirs.map((r) => r.cpuMs));
    const same = theirs.every((r) => r.hash === mine[0]!.hash) && mine.every((r) => r.hash === mine[0]!.hash);
    out.redactImportAgainstCpuMs = before;
    out.redactImportRatio = ms / before;
    out.redactImportSameOutput = same ? 1 : 0;
    line += `; ${against}: ${before.toFixed(0)} ms (${theirs.map((r) => r.cpuMs.toFixed(0)).join(', ')}) = ${(ms / before).toFixed(3)}× its CPU; output ${same ? 'byte-for-byte the same' : 'DIFFERS'}`;
  }
  console.log(`${line} (load average ${load})`);
  return out;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args[0] === 'worker') process.stdout.write(JSON.stringify(work(args[1]!, args[2]!)) + '\n');
  else benchRedactImport(new Map(args.filter((a) => a.includes('=')).map((a) => a.split('=', 2) as [string, string])));
}
