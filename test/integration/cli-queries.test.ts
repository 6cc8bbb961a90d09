import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spanEvents } from '../../src/sources/dispatch';
import { EventLog } from '../../src/store/log/event-log';
import { decodeJsonTraces } from '../../src/receiver/signals/traces';
import { toRows } from '../../src/ingest/rows';
import { jsonl, runBeacon } from '../helpers/daemon';
import { gooseDefaultLoopTurn, hex } from '../helpers/goose-spans';
import { runHookSync } from '../helpers/hooks';
import { traceRequest } from '../helpers/otlp-json';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const T0 = 1787301000000000000n; // 2026-08-21 08:30:00 UTC (Friday); 14:00 in Asia/Kolkata (+05:30)
const MIN = 60_000_000_000n;
const DAY = 1440n * MIN;

function store(log: EventLog, spans: object): void {
  const ex = spanEvents(decodeJsonTraces(Buffer.from(JSON.stringify(traceRequest(spans as never)))));
  log.append(toRows(ex.events).rows);
}

/** One goose turn on each of the given day offsets from T0, plus one hook event. */
function fixture(days: number[] = [0]): string {
  const dir = tempDir('queries-');
  const path = join(dir, 'events.db');
  const log = EventLog.open(path);
  for (const [i, d] of days.entries()) store(log, gooseDefaultLoopTurn({ sessionId: `s${i}`, start: T0 + BigInt(d) * DAY }).spans);
  log.close();
  runHookSync(path, 'pre-tool', { event: 'PreToolUse', session_id: 's0', tool_call_id: 'call-hook-1', tool_name: 'shell', tool_input: { command: 'ls' } });
  return path;
}

const KOLKATA = { TZ: 'Asia/Kolkata' };

describe('read-only commands never create anything', () => {
  it('events, token-usage, prune and doctor on a missing log in a missing directory leave the disk as it was', () => {
    const dir = tempDir('ro-');
    const log = join(dir, 'missing', 'dir', 'x.db');
    const home = tempDir('ro-home-');
    for (const args of [['events'], ['events', '--json'], ['token-usage'], ['prune'], ['doctor']]) {
      const r = runBeacon([...args, '--log', log], { HOME: home, BEACON_SERVICE_NO_ACTIVATE: '1' });
      assert.notEqual(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.deepEqual(readdirSync(dir), [], `${args.join(' ')} created nothing`);
    }
    const usage = runBeacon(['token-usage', '--log', log], { HOME: home });
    assert.match(usage.stdout, /no event log at .*x\.db yet/);
    assert.doesNotMatch(usage.stdout, /TOTAL/, 'no all-zero table');
    assert.match(runBeacon(['doctor', '--log', log], { HOME: home, BEACON_SERVICE_NO_ACTIVATE: '1' }).stdout, /event-log\s+.*does not exist yet/);
  });

  it('a directory or a file that is not SQLite gets a message that says so, exit 1', () => {
    const dir = tempDir('ro-dir-');
    const junk = join(dir, 'notes.txt');
    writeFileSync(junk, 'this is not a database, just some text that is long enough\n');
    for (const cmd of ['events', 'token-usage', 'prune']) {
      const d = runBeacon([cmd, '--log', dir], { HOME: dir });
      assert.equal(d.status, 1, `${cmd} dir: ${d.stderr}`);
      assert.match(d.stderr, /is a directory, not an event log/, cmd);
      const f = runBeacon([cmd, '--log', junk], { HOME: dir });
      assert.equal(f.status, 1, `${cmd} junk`);
      assert.match(f.stderr, /is not a SQLite file/, cmd);
      assert.doesNotMatch(d.stderr + f.stderr, /disk I\/O error|usage/);
    }
  });
});

describe('time: local by default, explicit, validated', () => {
  const path = fixture();

  it('the events table shows local time with its offset; --utc shows UTC', () => {
    const local = runBeacon(['events', '--log', path, '--session', 's0', '--method', 'otlp'], KOLKATA).stdout.split('\n');
    assert.match(local[1]!, /^2026-08-21 14:00:00\.010\+05:30 /);
    const utc = runBeacon(['events', '--log', path, '--session', 's0', '--method', 'otlp', '--utc'], KOLKATA).stdout.split('\n');
    assert.match(utc[1]!, /^2026-08-21 08:30:00\.010Z /);
  });

  it('--since/--until without a zone are local time; with one, exact', () => {
    const count = (args: string[]) => jsonl(runBeacon(['events', '--log', path, '--method', 'otlp', '--json', ...args], KOLKATA).stdout).length;
    assert.equal(count(['--since', '2026-08-21T14:00']), 4, 'local 14:00 is 08:30Z: the whole turn');
    assert.equal(count(['--since', '2026-08-21T14:01']), 0);
    assert.equal(count(['--until', '2026-08-21 14:00']), 0);
    assert.equal(count(['--since', '2026-08-21T08:30:00Z', '--until', '2026-08-21T08:31:00Z']), 4);
    assert.equal(count(['--since', '2026-08-21T08:30:00Z', '--utc']), 4);
    assert.equal(count(['--since', '2026-08-21T08:30', '--utc']), 4, '--utc: zone-less means UTC');
  });

  it('impossible dates and inverted ranges are command-line errors, exit 2', () => {
    for (const [args, message] of [
      [['--since', '2026-02-31'], /has no day 31/],
      [['--since', '2026-13-01'], /no month 13/],
      [['--until', '2026-08-21T24:30'], /not a time of day/],
      [['--since', 'last tuesday'], /not a time or duration/],
      [['--since', '1h', '--until', '2h'], /is not before --until/],
    ] as [string[], RegExp][]) {
      for (const cmd of ['events', 'token-usage']) {
        const r = runBeacon([cmd, '--log', path, ...args]);
        assert.equal(r.status, 2, `${cmd} ${args.join(' ')}`);
        assert.match(r.stderr, message, `${cmd} ${args.join(' ')}`);
      }
    }
  });
});

describe('queries users expect', () => {
  it('events --action, --method, --tool-call, --model select exactly those records', () => {
    const path = fixture();
    const q = (args: string[]) => jsonl(runBeacon(['events', '--log', path, '--json', ...args]).stdout);
    const all = q([]);
    assert.ok(all.length >= 5);
    assert.deepEqual(new Set(q(['--action', 'model.invoked']).map((r) => r.event.action)), new Set(['model.invoked']));
    assert.deepEqual(q(['--method', 'hook']).map((r) => r.harness.collection_method), ['hook']);
    assert.deepEqual(q(['--tool-call', 'call-hook-1']).map((r) => r.gen_ai.tool.call.id), ['call-hook-1']);
    const models = q(['--model', 'claude-sonnet-4-5-20250929']);
    assert.ok(models.length > 0 && models.every((r) => r.model === 'claude-sonnet-4-5-20250929'));
    assert.equal(q(['--model', 'no-such-model']).length, 0);
    assert.equal(runBeacon(['events', '--log', path, '--method', 'carrier-pigeon']).status, 2);
  });

  it('token-usage --by week and month (local), and --top sums the rest into an others row', () => {
    // Fri 2026-08-21, Mon 08-24 (next ISO week), Tue 09-01 (next month)
    const path = fixture([0, 3, 11]);
    const usage = (args: string[]) => JSON.parse(runBeacon(['token-usage', '--log', path, '--json', ...args], KOLKATA).stdout);
    assert.deepEqual(usage(['--by', 'week']).groups.map((g: { key: string; model_calls: number }) => [g.key, g.model_calls]), [
      ['2026-W34 (from 2026-08-17)', 2], ['2026-W35 (from 2026-08-24)', 2], ['2026-W36 (from 2026-08-31)', 2],
    ]);
    assert.deepEqual(usage(['--by', 'month']).groups.map((g: { key: string }) => g.key), ['2026-08', '2026-09']);
    // local days: 2026-08-21 22:00 UTC is already 08-22 in Kolkata
    const late = join(tempDir('late-'), 'events.db');
    const log = EventLog.open(late);
    store(log, [{ name: 'chat', traceId: hex(16), spanId: hex(8), start: T0 + 810n * MIN, end: T0 + 811n * MIN, attributes: { 'gen_ai.operation.name': 'chat', 'session.id': 'x', 'gen_ai.response.model': 'm', 'gen_ai.usage.input_tokens': 1 } }]);
    log.close();
    const day = (extra: string[]) => JSON.parse(runBeacon(['token-usage', '--log', late, '--json', '--by', 'day', ...extra], KOLKATA).stdout).groups[0].key;
    assert.equal(day([]), '2026-08-22');
    assert.equal(day(['--utc']), '2026-08-21');

    const top = usage(['--by', 'session', '--top', '1']);
    assert.equal(top.groups.length, 1);
    assert.equal(top.others.key, '(2 others)');
    assert.equal(top.groups[0].model_calls + top.others.model_calls, top.totals.model_calls);
    const text = runBeacon(['token-usage', '--log', path, '--by', 'session', '--top', '1']).stdout;
    assert.match(text, /\n\(2 others\)\s+4\s/);
  });

  it('tables fit the terminal width ($COLUMNS); a pipe without it gets whole lines', () => {
    const path = fixture();
    for (const args of [['events'], ['token-usage', '--by', 'session']]) {
      const narrow = runBeacon([...args, '--log', path], { COLUMNS: '100' }).stdout.split('\n').filter((l) => /^\S/.test(l) && !/^(costs|unpriced|\*)/.test(l));
      assert.ok(narrow.length > 1);
      for (const l of narrow) assert.ok(l.length <= 100, `${args[0]}: ${l.length} > 100: ${l}`);
    }
    const wide = runBeacon(['events', '--log', path], { COLUMNS: '' }).stdout.split('\n');
    assert.ok(wide.some((l) => l.length > 100), 'without a width nothing is cut');
  });

  it('--follow prints its table in fixed columns: every ACTION starts under the header', async () => {
    const path = fixture();
    const child = spawn(process.execPath, [BEACON_BIN, 'events', '--follow', '--since', '2026-08-01', '--log', path], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...KOLKATA } });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    for (let i = 0; i < 200 && out.split('\n').length < 6; i++) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    await new Promise((r) => child.on('close', r));
    const lines = out.split('\n').filter(Boolean);
    assert.ok(lines.length >= 5, out);
    const at = lines[0]!.indexOf('ACTION');
    for (const l of lines.slice(1)) assert.match(l.slice(at), /^(model|tool|command|file|prompt)\.\w+ /, `aligned: ${l}`);
  });

  it('prune counts in words that agree with the number', () => {
    const path = fixture();
    const r = runBeacon(['prune', '--log', path, '--max-age-days', '0', '--max-bytes', '0']);
    assert.match(r.stdout, /removed no events by age \(no age limit\) and none for size \(no size limit\)/);
    assert.doesNotMatch(r.stdout, /∞/);
    assert.ok(existsSync(path));
    mkdirSync(join(path, '..', 'sub'));
  });
});
