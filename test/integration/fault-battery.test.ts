import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { spoolDir } from '../../src/ingest/spool';
import { startCollector } from '../helpers/daemon';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { runHookAsync } from '../helpers/hooks';
import { traceRequest } from '../helpers/otlp-json';
import { BEACON_BIN } from '../helpers/paths';

const HOOK_WAVES = 3;
const HOOKS_AT_ONCE = 16;
const STREAM_CALLS = 120;
const EXPORTS = 40;

/** goose's stream-json for `n` answered shell calls, written in small pieces as goose would. */
async function streamPipe(log: string, n: number): Promise<{ code: number | null; stderr: string }> {
  const child = spawn('sh', ['-c', `"${process.execPath}" "${BEACON_BIN}" stream goose --session battery-stream --log '${log}' > /dev/null`], { stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const closed = new Promise<number | null>((r) => child.on('close', r));
  for (let i = 0; i < n; i++) {
    const id = `stream_${i}`;
    child.stdin.write(`${JSON.stringify({ type: 'message', message: { id: `a${i}`, role: 'assistant', created: Math.floor(Date.now() / 1000), content: [{ type: 'toolRequest', id, toolCall: { status: 'success', value: { name: 'shell', arguments: { command: `make ${i}` } } } }], metadata: {} } })}\n`);
    child.stdin.write(`${JSON.stringify({ type: 'message', message: { id: `u${i}`, role: 'user', created: Math.floor(Date.now() / 1000), content: [{ type: 'toolResponse', id, toolResult: { status: 'success', value: { content: [], isError: false } } }], metadata: {} } })}\n`);
    if (i % 10 === 9) await new Promise((r) => setTimeout(r, 10));
  }
  child.stdin.end();
  return { code: await closed, stderr };
}

describe('fault battery: every writer at once into one log', () => {
  it(`${HOOKS_AT_ONCE} concurrent hook processes (sh -c) × ${HOOK_WAVES}, a stream pipe and ${EXPORTS} OTLP exports: each event exactly once`, async () => {
    const c = await startCollector();
    const now = () => BigInt(Date.now()) * 1_000_000n; // retention must have nothing to prune
    const exports = (async () => {
      const statuses: number[] = [];
      await Promise.all(Array.from({ length: 4 }, async (_, lane) => {
        for (let i = lane; i < EXPORTS; i += 4) {
          const body = JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: `battery-otlp-${i}`, start: now() }).spans));
          const r = await fetch(`${c.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
          statuses.push(r.status);
          // a retry of an acknowledged export must add nothing
          if (i % 10 === 0) statuses.push((await fetch(`${c.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })).status);
        }
      }));
      return statuses;
    })();
    const hooks = (async () => {
      const results = [];
      for (let w = 0; w < HOOK_WAVES; w++) {
        results.push(...(await Promise.all(Array.from({ length: HOOKS_AT_ONCE }, (_, i) =>
          runHookAsync(c.log, 'pre-tool', { event: 'PreToolUse', session_id: 'battery-hooks', tool_call_id: `hook_${w}_${i}`, tool_name: 'shell', tool_input: { command: `echo ${w} ${i}` } }),
        ))));
      }
      return results;
    })();
    const [statuses, hookResults, stream] = await Promise.all([exports, hooks, streamPipe(c.log, STREAM_CALLS)]);

    for (const r of hookResults) assert.deepEqual([r.status, r.stdout, r.stderr], [0, '{"decision":"allow"}', '']);
    assert.deepEqual([stream.code, stream.stderr], [0, '']);
    assert.ok(statuses.every((s) => s === 200), `exports answered ${[...new Set(statuses)].join(', ')}`);
    // whatever a writer spooled while the log was busy, the collector commits within a second or so
    for (let i = 0; i < 100; i++) {
      let left: string[] = [];
      try {
        left = readdirSync(spoolDir(c.log)).filter((n) => n.endsWith('.rows'));
      } catch {
        /* no spool at all */
      }
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(await c.stop(), 0);

    const db = new Database(c.log, { readonly: true });
    const perCall = (session: string) => db.prepare('SELECT tool_call_id AS id, count(*) AS n FROM events WHERE session_id = ? GROUP BY tool_call_id').all(session) as { id: string; n: number }[];
    const hookRows = perCall('battery-hooks');
    assert.equal(hookRows.length, HOOK_WAVES * HOOKS_AT_ONCE, 'every hook event stored');
    assert.ok(hookRows.every((r) => r.n === 1), 'each once');
    const streamRows = perCall('battery-stream');
    assert.equal(streamRows.length, STREAM_CALLS, 'every stream event stored');
    assert.ok(streamRows.every((r) => r.n === 1), 'each once');
    const otlp = db.prepare("SELECT session_id AS s, count(*) AS n FROM events WHERE method = 'otlp' GROUP BY session_id").all() as { s: string; n: number }[];
    assert.equal(otlp.length, EXPORTS, 'every acknowledged export stored');
    assert.ok(otlp.every((r) => r.n === 4), 'each export’s four events once, retries included');
    db.close();
  });
});
