/**
 * The event log's own costs: durability (`synchronous = NORMAL` against `FULL`, interleaved in one
 * run) and maintenance (the longest write-lock hold of a retention pass over a ≥ 500 MB log, as a
 * writer beside it sees it, against the one-statement vacuum it replaced, on a copy of the same log).
 */
import Database from 'better-sqlite3';
import { copyFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spanEvents } from '../src/sources/dispatch';
import { EventLog } from '../src/store/log/event-log';
import { EventLogWriter } from '../src/store/writer/event-log-writer';
import { pruneInWorker } from '../src/store/maintenance/retention-runner';
import { decodeProtoTraces } from '../src/receiver/signals/traces';
import { toRows } from '../src/ingest/rows';
import type { EventRow } from '../src/store/log/row';
import { tempDir } from '../test/helpers/paths';
import { gooseExportTemplate } from './fixture';
import { median } from './measure';

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const DAY = 86_400_000_000_000n;

function sampleRows(): EventRow[] {
  const { body } = gooseExportTemplate(100);
  return toRows(spanEvents(decodeProtoTraces(body)).events).rows;
}

const stamp = (rows: EventRow[], i: number) => rows.map((r, j) => ({ ...r, id: `${i}-${j}`, traceId: `${i}-${r.traceId}` }));

/** Exports committed per second, one transaction each (as the writer commits an export alone). */
export function benchDurability(seconds = 2, rounds = 3): Record<string, number> {
  const rows = sampleRows();
  const dir = tempDir('bench-sync-');
  const logs = { NORMAL: EventLog.open(join(dir, 'normal.db')), FULL: EventLog.open(join(dir, 'full.db')) };
  logs.FULL.db.pragma('synchronous = FULL');
  const rate: Record<'NORMAL' | 'FULL', number[]> = { NORMAL: [], FULL: [] };
  let i = 0;
  for (let r = 0; r < rounds; r++) {
    for (const mode of ['NORMAL', 'FULL'] as const) {
      const start = performance.now();
      let n = 0;
      while (performance.now() - start < seconds * 1000) {
        logs[mode].append(stamp(rows, i++));
        n++;
      }
      rate[mode].push(n / ((performance.now() - start) / 1000));
    }
  }
  for (const l of Object.values(logs)) l.close();
  const normal = median(rate.NORMAL);
  const full = median(rate.FULL);
  console.log(`durability: one commit per 100-span export (${rows.length} rows), interleaved ${rounds}×${seconds} s: synchronous=NORMAL ${fmt(normal)} commits/s, FULL ${fmt(full)} commits/s (FULL = ${fmt(full / normal, 2)}× NORMAL; ${fmt((1000 / full) - (1000 / normal), 2)} ms more per commit)`);
  return { syncNormalCommitsPerSec: normal, syncFullCommitsPerSec: full, syncFullRatio: full / normal };
}

/** The collector's writer thread saturated (8 exports in flight, group commit), NORMAL against FULL, interleaved. */
export async function benchWriterDurability(seconds = 3, rounds = 2): Promise<Record<string, number>> {
  const rows = sampleRows();
  const dir = tempDir('bench-writer-sync-');
  const rate: Record<'NORMAL' | 'FULL', number[]> = { NORMAL: [], FULL: [] };
  let i = 0;
  for (let r = 0; r < rounds; r++) {
    for (const mode of ['NORMAL', 'FULL'] as const) {
      const writer = await EventLogWriter.start({ path: join(dir, `${mode}-${r}.db`), busyTimeoutMs: 5000, synchronous: mode });
      await writer.append(stamp(rows, i++)); // threads up
      const start = performance.now();
      let n = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (performance.now() - start < seconds * 1000) {
            await writer.append(stamp(rows, i++));
            n++;
          }
        }),
      );
      rate[mode].push((n * 100) / ((performance.now() - start) / 1000));
      await writer.close();
    }
  }
  const best = (xs: number[]) => Math.max(...xs);
  const normal = best(rate.NORMAL);
  const full = best(rate.FULL);
  console.log(`durability at the writer thread (8 exports in flight, group commit, best of ${rounds}×${seconds} s interleaved): NORMAL ${fmt(normal)} spans/s, FULL ${fmt(full)} spans/s (FULL = ${fmt(full / normal, 2)}× NORMAL)`);
  return { writerNormalSpansPerSec: normal, writerFullSpansPerSec: full, writerFullRatio: full / normal };
}

/** Builds a log of at least `mb` MB, half of it received 100 days ago, and prunes that half. */
export async function benchRetention(mb = 520): Promise<Record<string, number>> {
  const rows = sampleRows();
  const dir = tempDir('bench-retention-');
  const path = join(dir, 'events.db');
  const now = BigInt(Date.now()) * 1_000_000n;
  const build = (received: bigint, untilBytes: number, from: number) => {
    const log = EventLog.open(path, { clock: () => received });
    log.db.pragma('synchronous = OFF');
    let i = from;
    while ((log.db.pragma('page_count', { simple: true }) as number) * 4096 < untilBytes) {
      log.db.transaction(() => {
        for (let k = 0; k < 100; k++) log.append(stamp(rows, i++));
      })();
    }
    log.db.pragma('wal_checkpoint(TRUNCATE)');
    log.close();
    return i;
  };
  const t0 = performance.now();
  const reuse = process.env.BENCH_RETENTION_LOG; // a log built by an earlier run (kept there), to iterate quickly
  if (reuse && existsSync(reuse)) copyFileSync(reuse, path);
  else {
    const half = build(now - 100n * DAY, (mb / 2) * 1048576, 0);
    build(now, mb * 1048576, half);
    if (reuse) copyFileSync(path, reuse);
  }
  const bytes = statSync(path).size;
  console.log(`retention: built a ${fmt(bytes / 1048576)} MB log (half received 100 days ago) in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  const copy = join(dir, 'copy.db');
  copyFileSync(path, copy);

  // A writer beside the pass, as a hook is: one small commit every 10 ms; its slowest is the longest
  // time retention kept it out.
  const probe = EventLog.open(path, { busyTimeoutMs: 10_000, hookConnection: true });
  let longestWait = 0;
  let probes = 0;
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const t = performance.now();
      probe.append(stamp(rows.slice(0, 1), 1e9 + probes++));
      longestWait = Math.max(longestWait, performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const tp = performance.now();
  const r = await pruneInWorker(path, { maxAgeDays: 90, maxBytes: 0 }, 10_000);
  const passMs = performance.now() - tp;
  stop = true;
  await loop;
  probe.close();
  console.log(`  pass: ${fmt(r.deletedByAge)} events deleted, ${fmt(r.pagesVacuumed)} pages vacuumed in ${fmt(r.steps)} steps over ${fmt(passMs / 1000, 1)} s; longest step ${fmt(r.longestStepMs, 1)} ms (delete ${fmt(r.longestDeleteMs, 1)}, vacuum ${fmt(r.longestVacuumMs, 1)}); a writer committing every 10 ms beside it (${fmt(probes)} commits) waited at most ${fmt(longestWait, 1)} ms; file ${fmt(bytes / 1048576)} → ${fmt(statSync(path).size / 1048576)} MB`);

  // The replaced way, on the copy: the same deletes, then incremental_vacuum with no page count.
  const old = new Database(copy);
  const cutoff = now - 90n * DAY;
  while (old.prepare('DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE received_ns < ? LIMIT 20000)').run(cutoff).changes > 0);
  const tv = performance.now();
  old.pragma('incremental_vacuum');
  const oneStatementMs = performance.now() - tv;
  old.close();
  console.log(`  the one-statement incremental_vacuum it replaced held the lock ${fmt(oneStatementMs)} ms on the copy (${fmt(oneStatementMs / Math.max(r.longestStepMs, 0.001), 0)}× the longest step)`);
  return { retentionLogMb: bytes / 1048576, retentionLongestStepMs: r.longestStepMs, retentionWriterLongestWaitMs: longestWait, retentionSteps: r.steps, retentionPassMs: passMs, retentionOneStatementVacuumMs: oneStatementMs };
}
