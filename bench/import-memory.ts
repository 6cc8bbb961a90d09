/**
 * `beacon import`'s memory on one large transcript (issue 31 item 3: bounded memory on a 1 GB
 * transcript): a Claude Code transcript of `--mb` MB (default 200; 5 KB turns: a prompt, an answer
 * with its usage) imported into a fresh log, its peak RSS (VmHWM, from /usr/bin/time's %M), then
 * imported again (nothing read: its cursor) and once more after a turn is appended (only that read).
 * A figure, not a timed test: `npm run build && node dist/bench/import-memory.js [--mb 200]`.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BEACON_BIN, tempDir } from '../test/helpers/paths';

const SESSION = '3d4c1a2b-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const mbArg = process.argv.indexOf('--mb');
const megabytes = mbArg >= 0 ? Number(process.argv[mbArg + 1]) : 200;

function turn(i: number): string {
  const t = new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString();
  const base = { sessionId: SESSION, version: '2.1.197', cwd: '/work' };
  const prompt = { ...base, timestamp: t, type: 'user', uuid: `u-${i}`, message: { role: 'user', content: `turn ${i}: summarise the file` } };
  const answer = {
    ...base, timestamp: t, type: 'assistant', uuid: `a-${i}`,
    message: { id: `msg_${i}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_reason: 'end_turn', content: [{ type: 'text', text: 'x'.repeat(4600) }], usage: { input_tokens: 100 + (i % 50), output_tokens: 20, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0 } },
  };
  return `${JSON.stringify(prompt)}\n${JSON.stringify(answer)}\n`;
}

/** Runs `beacon import` under /usr/bin/time: its peak RSS in MB, wall seconds and the bytes it says it read. */
function importOnce(home: string, log: string): { rssMb: number; seconds: number; bytes: number } {
  const t = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'maxrss_kb=%M', process.execPath, BEACON_BIN, 'import', 'claude-code', '--from', home, '--log', log], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(r.stderr);
  const rss = Number(/maxrss_kb=(\d+)/.exec(r.stderr)?.[1]);
  const bytes = Number(/read ([\d,]+) bytes?/.exec(r.stdout)?.[1]?.replace(/,/g, ''));
  return { rssMb: rss / 1024, seconds: (performance.now() - t) / 1000, bytes };
}

function main(): void {
  const home = tempDir('import-memory-');
  const dir = join(home, '.claude', 'projects', '-work');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${SESSION}.jsonl`);
  const fd = openSync(file, 'w', 0o600);
  let i = 0;
  for (let size = 0; size < megabytes * 1024 * 1024; i++) size += writeSync(fd, turn(i));
  closeSync(fd);
  const log = join(tempDir('import-memory-log-'), 'events.db');
  console.log(`transcript: ${(statSync(file).size / 1024 / 1024).toFixed(0)} MB, ${i.toLocaleString('en-US')} turns (${(2 * i).toLocaleString('en-US')} events)`);
  const first = importOnce(home, log);
  console.log(`first import: peak RSS ${first.rssMb.toFixed(0)} MB, ${first.seconds.toFixed(1)} s, read ${first.bytes.toLocaleString('en-US')} bytes`);
  const again = importOnce(home, log);
  console.log(`re-import, unchanged: peak RSS ${again.rssMb.toFixed(0)} MB, ${again.seconds.toFixed(2)} s, read ${again.bytes.toLocaleString('en-US')} bytes`);
  appendFileSync(file, turn(i));
  const grown = importOnce(home, log);
  console.log(`re-import after one appended turn: ${grown.seconds.toFixed(2)} s, read ${grown.bytes.toLocaleString('en-US')} bytes`);
}

main();
