/**
 * What any first import of the month must cost, whatever Beacon does (issue 31 item 4's ≤ 2× goal
 * beside ccusage): parsing every line of the files (ccusage does that too, on several threads), and
 * writing the rows of the import into SQLite with nothing else — the events table alone, no index
 * but its key and its id, no trigger, the same 2,000-row transactions. ccusage writes nothing; Beacon
 * must store every prompt, model call and tool call (item 1). Each floor is timed in this process,
 * on one thread, after the import, so the files and the log are in the page cache as they were for it.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export interface Floor {
  ms: number;
  cpuMs: number;
  /** what it went over: lines parsed, rows written */
  count: number;
}

function measured(work: () => number): Floor {
  const cpu = process.cpuUsage();
  const t = performance.now();
  const count = work();
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000, count };
}

function* jsonlFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* jsonlFiles(p);
    else if (name.endsWith('.jsonl')) yield p;
  }
}

/** Reading and JSON.parse of every line of the session files under `home`. */
export function parseFloor(home: string): Floor {
  return measured(() => {
    let lines = 0;
    for (const f of jsonlFiles(home)) {
      for (const line of readFileSync(f, 'utf8').split('\n')) {
        if (line === '') continue;
        JSON.parse(line);
        lines++;
      }
    }
    return lines;
  });
}

/** The rows of `log` written again into a table of the same columns with no index or trigger (its UNIQUE id kept). */
export function insertFloor(log: string, scratchDir: string): Floor {
  const src = new Database(log, { readonly: true });
  const path = join(scratchDir, 'floor.db');
  const dst = new Database(path);
  try {
    dst.pragma('journal_mode = WAL');
    dst.pragma('synchronous = NORMAL');
    dst.exec((src.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'").get() as { sql: string }).sql);
    const cols = (src.prepare('PRAGMA table_info(events)').all() as { name: string }[]).map((c) => c.name).filter((c) => c !== 'seq');
    const insert = dst.prepare(`INSERT OR IGNORE INTO events (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`);
    const read = src.prepare(`SELECT ${cols.join(', ')} FROM events WHERE seq > ? ORDER BY seq LIMIT 2000`).raw(true).safeIntegers(true);
    const seqOf = src.prepare('SELECT max(seq) AS s FROM (SELECT seq FROM events WHERE seq > ? ORDER BY seq LIMIT 2000)').pluck().safeIntegers(true);
    const write = dst.transaction((rows: unknown[][]) => {
      for (const r of rows) insert.run(r);
    });
    // each batch is read before its clock starts: only the writing is timed (and memory stays one batch)
    const total: Floor = { ms: 0, cpuMs: 0, count: 0 };
    for (let after = 0n; ; ) {
      const rows = read.all(after) as unknown[][];
      if (rows.length === 0) break;
      after = seqOf.get(after) as bigint;
      const f = measured(() => (write(rows), rows.length));
      total.ms += f.ms;
      total.cpuMs += f.cpuMs;
      total.count += f.count;
    }
    const checkpoint = measured(() => (dst.pragma('wal_checkpoint(TRUNCATE)'), 0));
    return { ms: total.ms + checkpoint.ms, cpuMs: total.cpuMs + checkpoint.cpuMs, count: total.count };
  } finally {
    src.close();
    dst.close();
    for (const f of [path, `${path}-wal`, `${path}-shm`]) rmSync(f, { force: true });
  }
}
