/**
 * The store's part of the fault battery: a collector killed -9 under load, its writer thread killed
 * mid-load, a retention thread that dies, retention over a large log while hooks and exports write,
 * and chat-wrapper dedup whatever order the exports (and their retries) arrive in. All over real
 * sockets against the compiled daemon; the thread faults use the test-only BEACON_TEST_FAULT_*
 * files (src/store/test-fault.ts).
 */
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import type { EventRow } from '../../src/store/log/row';
import { startCollector, type RunningCollector } from '../helpers/daemon';
import { gooseDefaultLoopTurn, gooseStateMachineTurn } from '../helpers/goose-spans';
import { runHookAsync } from '../helpers/hooks';
import { traceRequest, type SpanSpec } from '../helpers/otlp-json';
import { tempDir } from '../helpers/paths';

const json = { 'content-type': 'application/json' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** GenAI events one default-loop turn stores: 2 model calls, shell and edit (todo records nothing). */
const EVENTS_PER_TURN = 4;

async function post(url: string, spans: SpanSpec[]): Promise<{ status: number; retryAfter: string | null }> {
  try {
    const r = await fetch(`${url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(spans)), headers: json });
    await r.arrayBuffer();
    return { status: r.status, retryAfter: r.headers.get('retry-after') };
  } catch {
    return { status: 0, retryAfter: null };
  }
}

/** Events per session, straight from the log. */
function perSession(log: string, prefix: string): Map<string, number> {
  const db = new Database(log, { readonly: true });
  const rows = db.prepare('SELECT session_id AS s, count(*) AS n FROM events WHERE session_id LIKE ? GROUP BY session_id').all(`${prefix}%`) as { s: string; n: number }[];
  db.close();
  return new Map(rows.map((r) => [r.s, r.n]));
}

const health = async (c: RunningCollector) => {
  const r = await fetch(`${c.url}/health`);
  return { status: r.status, body: (await r.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
};

describe('fault battery: the store', () => {
  it('kill -9 of a loaded collector, three times: every acknowledged export is there exactly once, and retries add nothing', async () => {
    const log = join(tempDir('kill9-'), 'events.db');
    const acked = new Set<string>();
    const unacked = new Map<string, SpanSpec[]>();
    let n = 0;
    for (let round = 0; round < 3; round++) {
      const c = await startCollector({ log });
      let stop = false;
      const senders = Array.from({ length: 6 }, async () => {
        while (!stop) {
          const t = gooseDefaultLoopTurn({ sessionId: `k9_${n++}` });
          const r = await post(c.url, t.spans);
          if (r.status === 200) acked.add(t.sessionId);
          else unacked.set(t.sessionId, t.spans);
        }
      });
      while (acked.size < (round + 1) * 40) await sleep(5);
      c.proc.kill('SIGKILL');
      stop = true;
      await Promise.all(senders);
      await c.stop();
    }
    const counts = perSession(log, 'k9_');
    for (const s of acked) assert.equal(counts.get(s), EVENTS_PER_TURN, `acknowledged ${s}: ${counts.get(s)} events`);
    // The client retries what was not acknowledged (some of it was committed before the kill).
    assert.ok(unacked.size > 0, 'the kill left exports unanswered: there is something to retry');
    const c = await startCollector({ log });
    for (const [, spans] of unacked) assert.equal((await post(c.url, spans)).status, 200);
    await c.stop();
    const after = perSession(log, 'k9_');
    for (const s of [...acked, ...unacked.keys()]) assert.equal(after.get(s), EVENTS_PER_TURN, `${s} exactly once`);
  });

  it('the writer thread killed mid-load: 503 + Retry-After, then recovery; nothing acknowledged is lost', async () => {
    const dir = tempDir('writer-kill-');
    const fault = join(dir, 'fault');
    writeFileSync(fault, '1:25'); // the first writer dies holding its 25th batch
    const c = await startCollector({ log: join(dir, 'events.db'), env: { BEACON_TEST_FAULT_WRITER: fault } });
    const statuses: number[] = [];
    const retryAfter: (string | null)[] = [];
    const sessions: string[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, k) => {
        for (let i = 0; i < 20; i++) {
          const t = gooseDefaultLoopTurn({ sessionId: `wk_${k}_${i}` });
          sessions.push(t.sessionId);
          for (let attempt = 0; ; attempt++) {
            const r = await post(c.url, t.spans); // as an OTLP exporter does: retry 503 after Retry-After
            statuses.push(r.status);
            if (r.status === 200) break;
            retryAfter.push(r.retryAfter);
            assert.ok(attempt < 20, 'recovers');
            await sleep(Number(r.retryAfter ?? 1) * 100);
          }
        }
      }),
    );
    const h = await health(c);
    await c.stop();
    assert.ok(statuses.includes(503), `some exports were refused: ${[...new Set(statuses)]}`);
    assert.deepEqual([...new Set(statuses)].sort(), [200, 503], 'never a 429 wedge, never a 500');
    assert.ok(retryAfter.every((x) => x !== null && Number(x) >= 1), 'every 503 says when to retry');
    assert.equal(h.status, 200);
    assert.deepEqual([h.body.status, h.body.pid, h.body.log.path, h.body.queue], ['ok', c.proc.pid, c.log, { exports: 0, bytes: 0 }]);
    assert.ok(h.body.log.bytes > 0);
    assert.equal(h.body.threads.writer.state, 'running');
    assert.equal(h.body.threads.writer.restarts, 1);
    assert.match(h.body.lastError.message, /writer thread exited with code 70/);
    const counts = perSession(c.log, 'wk_');
    for (const s of sessions) assert.equal(counts.get(s), EVENTS_PER_TURN, `${s} stored once`);
  });

  it('a writer that cannot start again and again: reported on /health, exports 503 + Retry-After, then the collector exits 1 for its service manager', async () => {
    const dir = tempDir('writer-dead-');
    const fault = join(dir, 'fault');
    writeFileSync(fault, '50:0'); // every writer start dies while opening the log
    const c = await startCollector({ log: join(dir, 'events.db'), env: { BEACON_TEST_FAULT_WRITER: fault } });
    const before = await health(c);
    assert.deepEqual([before.status, before.body.status, before.body.threads.writer.state], [200, 'ok', 'idle']);
    const exited = new Promise<number | null>((resolve) => c.proc.once('exit', (code) => resolve(code)));
    let h: Awaited<ReturnType<typeof health>> | undefined;
    for (let i = 0, wait = 0; i < 5; i++) {
      await sleep(wait);
      if (i === 4) h = await health(c);
      const r = await post(c.url, gooseDefaultLoopTurn({ sessionId: `dead_${i}` }).spans);
      assert.equal(r.status, 503);
      assert.ok(Number(r.retryAfter) >= 1);
      wait = Number(r.retryAfter) * 1000;
    }
    assert.notEqual(h!.body.status, 'ok', 'a writer that keeps dying is reported');
    assert.match(h!.body.lastError.message, /writer/);
    // Given up: the collector exits non-zero, so the service manager restarts it.
    const code = await Promise.race([exited, sleep(20_000).then(() => 'still running')]);
    if (code === 'still running') await c.stop();
    assert.equal(code, 1);
    assert.ok(c.lines.some((l) => l.includes('event log writer failed repeatedly')), 'the reason is logged');
  });

  it('retention over a large log while hooks and exports write: no hook event lost, no export refused; a dying retention thread is followed by a pass that runs', async () => {
    const dir = tempDir('retention-load-');
    const path = join(dir, 'events.db');
    const now = BigInt(Date.now()) * 1_000_000n;
    const old = EventLog.open(path, { clock: () => now - 30n * 86_400_000_000_000n });
    for (let b = 0; b < 3; b++) old.append(stale(4000, b));
    old.close();
    const fault = join(dir, 'fault');
    writeFileSync(fault, '1'); // the first retention thread dies before its pass
    const cfg = join(dir, 'config.json');
    writeFileSync(cfg, JSON.stringify({ collector: { retentionMaxAgeDays: 7, retentionIntervalMs: 1000 } }));
    const c = await startCollector({ log: path, args: ['--config', cfg], env: { BEACON_TEST_FAULT_RETENTION: fault } });
    let exporting = true;
    const exportStatuses: number[] = [];
    const exporter = (async () => {
      for (let i = 0; exporting; i++) exportStatuses.push((await post(c.url, gooseDefaultLoopTurn({ sessionId: `rl_${i}`, start: now }).spans)).status);
    })();
    const hooks: Promise<{ status: number | null; stderr: string }>[] = [];
    const pruned = () => c.lines.some((l) => l.includes('retention pruned events'));
    for (let i = 0; i < 16 || !pruned(); i++) {
      assert.ok(i < 400, 'a retention pass ran');
      hooks.push(runHookAsync(path, 'pre-tool', { event: 'PreToolUse', session_id: 'retention-hooks', tool_call_id: `h${i}`, tool_name: 'shell', tool_input: { command: `echo ${i}` } }));
      await sleep(40);
    }
    const results = await Promise.all(hooks);
    exporting = false;
    await exporter;
    const h = await health(c);
    await c.stop();
    for (const r of results) assert.deepEqual([r.status, r.stderr], [0, '']);
    assert.ok(exportStatuses.length > 0 && exportStatuses.every((s) => s === 200), `exports: ${[...new Set(exportStatuses)]}`);
    assert.equal(h.body.threads.retention.restarts, 1, JSON.stringify(h.body.threads.retention));
    assert.match(h.body.threads.retention.lastError.message, /exited with code 3/);
    const db = new Database(path, { readonly: true });
    const hookRows = db.prepare("SELECT count(DISTINCT tool_call_id) AS n, count(*) AS total FROM events WHERE session_id = 'retention-hooks'").get() as { n: number; total: number };
    const left = (db.prepare("SELECT count(*) AS n FROM events WHERE session_id = 'stale'").get() as { n: number }).n;
    db.close();
    assert.deepEqual([hookRows.n, hookRows.total], [hooks.length, hooks.length], 'each hook event stored once');
    assert.equal(left, 0, 'the stale events are gone');
  });

  it('a chat wrapper and its child count once whatever order their exports and retries arrive in', async () => {
    const c = await startCollector();
    const orders = { childFirst: ['child', 'parent'], parentFirst: ['parent', 'child'], retriedBoth: ['parent', 'child', 'parent', 'child', 'parent'] } as const;
    for (const [name, order] of Object.entries(orders)) {
      const t = gooseStateMachineTurn({ sessionId: `dedup_${name}` });
      const child = t.spans.filter((s) => s.name === 'stream_response_from_provider');
      const parent = t.spans.filter((s) => s.name === 'chat');
      for (const which of order) assert.equal((await post(c.url, which === 'child' ? child : parent)).status, 200);
    }
    await c.stop();
    const db = new Database(c.log, { readonly: true });
    const calls = db.prepare("SELECT session_id AS s, count(*) AS n, sum(input_tokens + cache_read_tokens) AS input FROM events WHERE action = 'model.invoked' GROUP BY session_id ORDER BY s").all();
    db.close();
    assert.deepEqual(calls, Object.keys(orders).sort().map((name) => ({ s: `dedup_${name}`, n: 1, input: 5000 })));
  });
});

function stale(n: number, batch: number): EventRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `stale-${batch}-${i}`, tsNs: 1n, harness: 'goose', method: 'hook', action: 'tool.invoked', sessionId: 'stale', traceId: null, spanId: null, parentSpanId: null, toolCallId: null,
    model: null, provider: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheCreationTokens: null, reasoningTokens: null, costUsd: null,
    record: JSON.stringify({ pad: 'x'.repeat(900) }), dropIfChatChildStored: false,
  }));
}
