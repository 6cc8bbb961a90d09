import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import type { EventRow } from '../../src/store/log/row';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { runBeacon, startCollector } from '../helpers/daemon';
import { runHookAsync } from '../helpers/hooks';
import { traceRequest } from '../helpers/otlp-json';
import { tempDir } from '../helpers/paths';

const post = (url: string, session: string, start?: bigint) =>
  fetch(`${url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: session, start }).spans)), headers: { 'content-type': 'application/json' } });

function exported(path: string, archives = 5): { sequence: number; session?: { id: string }; harness: { collection_method: string } }[] {
  const files = [...Array.from({ length: archives }, (_, i) => `${path}.${archives - i}`), path].filter(existsSync);
  return files.flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
}

async function waitFor(pred: () => boolean, what: string) {
  for (let i = 0; i < 100 && !pred(); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok(pred(), what);
}

describe('runtime.jsonl export', () => {
  it('exports every writer\'s events in commit order, rotates, keeps N archives 0600, and resumes after a restart without loss or repeat', async () => {
    const dir = tempDir('export-');
    const jsonl = join(dir, 'logs', 'runtime.jsonl');
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ collector: { exportPath: jsonl, exportRotateBytes: 16 * 1024, exportArchives: 3 } }));
    const log = join(dir, 'events.db');
    let c = await startCollector({ log, args: ['--config', cfg] });
    for (let i = 0; i < 4; i++) assert.equal((await post(c.url, `e${i}`)).status, 200);
    await runHookAsync(log, 'prompt-submit', { event: 'UserPromptSubmit', session_id: 'hook-1', message: 'hello' });
    await waitFor(() => exported(jsonl, 3).some((e) => e.session?.id === 'hook-1'), 'hook event exported');
    assert.equal(await c.stop(), 0);

    c = await startCollector({ log, args: ['--config', cfg] });
    for (let i = 4; i < 10; i++) assert.equal((await post(c.url, `e${i}`)).status, 200);
    await c.stop(); // the stop drains the export after the last commit

    const total = EventLog.open(log);
    const lines = exported(jsonl, 3);
    const seqs = lines.map((l) => l.sequence);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'commit order');
    assert.equal(new Set(seqs).size, seqs.length, 'nothing repeated');
    assert.equal(seqs[seqs.length - 1], Number(total.maxSeq()), 'nothing missed at the end');
    for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1]! + 1, 'contiguous across the restart and rotations');
    assert.ok(existsSync(`${jsonl}.3`) && !existsSync(`${jsonl}.4`), '3 archives kept');
    for (const f of [jsonl, `${jsonl}.1`]) assert.equal(statSync(f).mode & 0o777, 0o600);
    assert.ok(statSync(jsonl).size <= 16 * 1024);
    assert.ok(lines.some((l) => l.harness.collection_method === 'hook'));
    total.close();
    // `beacon events --json` prints the very same lines on demand
    const active = readFileSync(jsonl, 'utf8').split('\n').filter(Boolean);
    const onDemand = runBeacon(['events', '--log', log, '--json', '--since', '3650d']).stdout.split('\n').filter(Boolean);
    for (const line of active) assert.ok(onDemand.includes(line), 'identical line in beacon events --json');
  });

  it('cuts a torn last line after a crash and re-exports from the line before', async () => {
    const dir = tempDir('export-');
    const jsonl = join(dir, 'runtime.jsonl');
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ collector: { exportPath: jsonl } }));
    const log = join(dir, 'events.db');
    let c = await startCollector({ log, args: ['--config', cfg] });
    for (let i = 0; i < 3; i++) await post(c.url, `t${i}`);
    await c.stop();
    const full = readFileSync(jsonl, 'utf8').split('\n').filter(Boolean);
    const keep = full.slice(0, full.length - 2).join('\n');
    writeFileSync(jsonl, `${keep}\n${full[full.length - 2]!.slice(0, 50)}`); // the last line lost, the one before torn
    c = await startCollector({ log, args: ['--config', cfg] });
    await post(c.url, 't3');
    await c.stop();
    const seqs = exported(jsonl).map((l) => l.sequence);
    assert.equal(new Set(seqs).size, seqs.length);
    for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1]! + 1);
    assert.equal(seqs.length, 16);
  });

  it('a new export starts at the end of the log; beacon events --json --since exports the backlog', async () => {
    const dir = tempDir('export-');
    const log = join(dir, 'events.db');
    let c = await startCollector({ log });
    await post(c.url, 'old');
    await c.stop();
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ collector: { exportPath: join(dir, 'r.jsonl') } }));
    c = await startCollector({ log, args: ['--config', cfg] });
    await post(c.url, 'new');
    await c.stop();
    assert.deepEqual([...new Set(exported(join(dir, 'r.jsonl')).map((l) => l.session?.id))], ['new']);
    assert.equal(runBeacon(['events', '--log', log, '--json', '--since', '3650d']).stdout.trim().split('\n').length, 8);
  });
});

function rows(n: number, tsNs: (i: number) => bigint, prefix: string): EventRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`, tsNs: tsNs(i), harness: 'goose', method: 'hook', action: 'tool.invoked', sessionId: prefix, traceId: null, spanId: null, parentSpanId: null, toolCallId: null,
    model: null, provider: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheCreationTokens: null, reasoningTokens: null, costUsd: null, record: JSON.stringify({ id: `${prefix}-${i}`, pad: 'x'.repeat(900) }), dropIfChatChildStored: false,
  }));
}

describe('retention', () => {
  const DAY = 86_400_000_000_000n;
  const now = BigInt(Date.now()) * 1_000_000n;

  it('beacon prune removes events past the age limit, then the oldest past the size limit, and the file shrinks', () => {
    const path = join(tempDir('prune-'), 'events.db');
    // Retention judges age by when the log received an event: each batch is stored "then".
    let log = EventLog.open(path, { clock: () => now - 100n * DAY });
    log.append(rows(1000, () => now - 100n * DAY, 'ancient'));
    log.close();
    log = EventLog.open(path, { clock: () => now - DAY });
    log.append(rows(20000, (i) => now - DAY + BigInt(i), 'recent'));
    log.close();
    const before = statSync(path).size;
    let r = runBeacon(['prune', '--log', path, '--max-bytes', '0']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /removed 1,000 events received more than 90 days ago and none for size \(no size limit\)/);
    r = runBeacon(['prune', '--log', path, '--max-age-days', '0', '--max-bytes', String(5 * 1024 * 1024)]);
    assert.match(r.stdout, /removed no events by age \(no age limit\) and [\d,]+ events for size/);
    const check = EventLog.open(path);
    const left = check.list();
    check.close();
    assert.ok(left.length > 0 && left.length < 20000);
    assert.equal(JSON.parse(left[0]!.record).id.startsWith('recent-'), true);
    assert.ok(left.every((x, i) => i === 0 || x.tsNs >= left[i - 1]!.tsNs));
    assert.ok(Number(left[0]!.tsNs) > Number(now - DAY), 'the oldest went first');
    assert.ok(statSync(path).size < before / 2, `file shrank: ${before} → ${statSync(path).size}`);
  });

  it('the collector enforces retention in the background while it keeps ingesting', async () => {
    const dir = tempDir('retention-');
    const path = join(dir, 'events.db');
    const log = EventLog.open(path, { clock: () => now - 10n * DAY });
    log.append(rows(500, () => now - 10n * DAY, 'stale'));
    log.close();
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ collector: { retentionMaxAgeDays: 7, retentionIntervalMs: 300 } }));
    const c = await startCollector({ log: path, args: ['--config', cfg] });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await post(c.url, `live${i}`, now)).status);
    await waitFor(() => c.lines.some((l) => l.includes('retention pruned events')), 'a retention pass');
    await c.stop();
    assert.ok(statuses.every((s) => s === 200));
    const check = EventLog.open(path);
    const sessions = new Set(check.list().map((r) => JSON.parse(r.record).session?.id ?? JSON.parse(r.record).id));
    check.close();
    assert.ok(![...sessions].some((s) => String(s).startsWith('stale')), 'stale events gone');
    assert.equal([...sessions].filter((s) => String(s).startsWith('live')).length, 10);
  });
});
