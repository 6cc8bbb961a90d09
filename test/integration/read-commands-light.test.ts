import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { beaconRows } from '../helpers/beacon-rows';
import { runBeacon } from '../helpers/daemon';
import { tempDir } from '../helpers/paths';

/**
 * Issue 33: the read commands a user runs every day start in about one bare Node.js start. What
 * made them slower, checked without timing: the server stack (fastify, pino, protobufjs, gRPC, the
 * collector's own modules) loaded by a command that only reads, and ICU's number formatter and
 * collator (~25 and ~13 ms to build on their first call) for numbers and labels plain code formats.
 */
const HEAVY = ['/fastify/', '/pino/', '/protobufjs/', '/@grpc/', '/light-my-request/', '/d3-', '/dist/src/collector/', '/dist/src/receiver/', '/dist/src/ingest/', '/dist/src/dashboard/'];

/** A preload that writes, at exit, every module loaded and every ICU formatter or collator used. */
function probe(dir: string): string {
  const file = join(dir, 'probe.js');
  writeFileSync(file, `
const icu = [];
const wrap = (owner, name, label) => { const f = owner[name]; owner[name] = function (...a) { icu.push(label); return f.apply(this, a); }; };
wrap(Number.prototype, 'toLocaleString', 'Number#toLocaleString');
wrap(String.prototype, 'localeCompare', 'String#localeCompare');
wrap(Date.prototype, 'toLocaleString', 'Date#toLocaleString');
wrap(Date.prototype, 'toLocaleDateString', 'Date#toLocaleDateString');
wrap(Date.prototype, 'toLocaleTimeString', 'Date#toLocaleTimeString');
for (const k of ['NumberFormat', 'Collator', 'DateTimeFormat']) { const C = Intl[k]; Intl[k] = new Proxy(C, { construct(t, a) { icu.push('Intl.' + k); return new t(...a); }, apply(t, s, a) { icu.push('Intl.' + k); return t(...a); } }); }
process.on('exit', () => require('fs').writeFileSync(process.env.PROBE_OUT, JSON.stringify({ modules: Object.keys(require.cache), icu: [...new Set(icu)] })));
`);
  return file;
}

/** A log with model calls on several days (tokens in the thousands, so tables group digits) and tool calls. */
function logWithUsage(dir: string): string {
  const path = join(dir, 'events.db');
  const log = EventLog.open(path);
  const day = 86_400_000_000_000n;
  const now = BigInt(Date.now()) * 1_000_000n;
  const calls = beaconRows(12, 'light', (i) => now - BigInt(i % 4) * day - BigInt(i) * 1_000_000_000n).map((r, i) => ({
    ...r, method: 'otlp', action: 'model.invoked', sessionId: `light-s${i % 3}`, model: 'claude-sonnet-4-5-20250929', provider: 'anthropic',
    inputTokens: 12_345 + i, outputTokens: 2_345, cacheReadTokens: 123_456, cacheCreationTokens: 1_000,
  }));
  const tools = beaconRows(6, 'light-tool', (i) => now - BigInt(i) * 2_000_000_000n).map((r, i) => ({ ...r, sessionId: `light-s${i % 3}`, toolCallId: `call_${i}` }));
  log.append([...calls, ...tools]);
  log.close();
  return path;
}

describe('read commands stay light (issue 33)', () => {
  const dir = tempDir('read-light-');
  const log = logWithUsage(dir);
  const preload = probe(dir);
  const home = join(dir, 'home');
  mkdirSync(join(home, '.claude'), { recursive: true }); // an agent found here: plain doctor checks it (one line, its events read)
  const cases: [string, string[], (status: number | null) => boolean, string][] = [
    ['token-usage --by day', ['token-usage', '--by', 'day', '--log', log], (s) => s === 0, '200'],
    ['token-usage', ['token-usage', '--log', log], (s) => s === 0, '200'],
    ['sessions', ['sessions', '--log', log], (s) => s === 0, '200'],
    // 80 columns: the compact table, whose TOKENS column is one grouped number
    ['sessions (80 columns)', ['sessions', '--log', log], (s) => s === 0, '80'],
    // no collector runs here: doctor reports it and exits 1, having read the log
    ['doctor', ['doctor', '--log', log], (s) => s === 0 || s === 1, '200'],
  ];
  for (const [name, args, exited, columns] of cases) {
    it(`beacon ${name} loads no server module and builds no ICU formatter`, () => {
      const out = join(dir, `${name.replace(/\W+/g, '-')}.json`);
      const r = runBeacon(args, { HOME: home, COLUMNS: columns, NODE_OPTIONS: `--require ${preload}`, PROBE_OUT: out });
      assert.ok(exited(r.status), `${name} exited ${r.status}: ${r.stderr}`);
      const seen = JSON.parse(readFileSync(out, 'utf8')) as { modules: string[]; icu: string[] };
      // log-open.js opens every log, the writer's (event-log.js) too
      assert.ok(seen.modules.some((m) => m.includes('/dist/src/store/log/log-open.js')), 'the probe saw the command read the log');
      // sessions and token-usage query the connection alone: none of the writer's modules, nor node:crypto for its event ids
      if (name.startsWith('sessions') || name.startsWith('token-usage')) assert.deepEqual(seen.modules.filter((m) => /\/dist\/src\/store\/log\/(event-log|merge|call-join)\.js$|\/dist\/src\/model\/event-id\.js$/.test(m)), [], 'the writer loaded');
      for (const heavy of HEAVY) assert.deepEqual(seen.modules.filter((m) => m.includes(heavy)), [], heavy);
      assert.deepEqual(seen.icu, [], 'ICU formatters or collators used');
      if (name.startsWith('token-usage')) assert.match(r.stdout, /148,206/, 'numbers grouped as before (the input tokens of 12 calls)');
      if (columns === '80') assert.match(r.stdout, /TOKENS[\s\S]*\d,\d{3},?/, 'the compact table groups its tokens');
    });
  }
});
