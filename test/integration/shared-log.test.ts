import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { runHookAsync } from '../helpers/hooks';
import { traceRequest } from '../helpers/otlp-json';
import { repoRoot } from '../helpers/paths';

describe('one event log shared by the collector and the hooks', () => {
  it('hook and OTLP events of one goose session sit side by side, joined by session and tool call id', async () => {
    const c = await startCollector();
    const turn = gooseDefaultLoopTurn({ sessionId: '20261130_1' });
    const r = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(turn.spans)), headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 200);
    const base = { session_id: '20261130_1', working_dir: '/home/alice/proj' };
    await runHookAsync(c.log, 'prompt-submit', { ...base, event: 'UserPromptSubmit', message: 'fix the failing test' });
    await runHookAsync(c.log, 'pre-tool', { ...base, event: 'PreToolUse', tool_call_id: 'toolu_01AbC', tool_name: 'shell', tool_input: { command: 'cargo test' } });
    await runHookAsync(c.log, 'post-tool', { ...base, event: 'PostToolUse', tool_call_id: 'toolu_01AbC', tool_name: 'shell', tool_input: { command: 'cargo test' } });
    await c.stop();
    const evs = jsonl(runBeacon(['events', '--log', c.log, '--json', '--session', '20261130_1']).stdout);
    const methods = new Set(evs.map((e) => e.harness.collection_method));
    assert.deepEqual([...methods].sort(), ['hook', 'otlp']);
    const call = evs.filter((e) => e.gen_ai?.tool?.call?.id === 'toolu_01AbC');
    assert.deepEqual(call.map((e) => `${e.harness.collection_method}:${e.event.action}`).sort(), ['hook:command.executed', 'hook:tool.invoked', 'otlp:command.executed']);
  });

  it('under export load, 48 concurrent hook processes each land exactly once, and so does every acknowledged export', async () => {
    const c = await startCollector();
    const load = spawn(process.execPath, [join(repoRoot(), 'dist', 'bench', 'loadgen.js'), '--url', c.url, '--seconds', '6', '--connections', '4'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let loadOut = '';
    load.stdout.on('data', (d) => (loadOut += d));
    const loadDone = new Promise((r) => load.on('close', r));
    await new Promise((r) => setTimeout(r, 500));
    const ids = Array.from({ length: 48 }, (_, i) => `conc_${i}`);
    const queue = [...ids];
    const results: { status: number | null; stdout: string; stderr: string }[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let id = queue.shift(); id; id = queue.shift()) {
          results.push(await runHookAsync(c.log, 'pre-tool', { event: 'PreToolUse', session_id: 'concurrency', tool_call_id: id, tool_name: 'shell', tool_input: { command: `echo ${id}` } }));
        }
      }),
    );
    await loadDone;
    await c.stop();
    for (const r of results) assert.deepEqual([r.status, r.stdout, r.stderr], [0, '{"decision":"allow"}', '']);
    const load_ = JSON.parse(loadOut);
    assert.ok(load_.ok > 0, 'the daemon was under load');
    assert.equal(load_.failed, 0, JSON.stringify(load_.statuses));
    const db = new Database(c.log, { readonly: true });
    const hookRows = db.prepare("SELECT tool_call_id AS id, count(*) AS n FROM events WHERE session_id = 'concurrency' GROUP BY tool_call_id").all() as { id: string; n: number }[];
    assert.deepEqual(hookRows.map((r) => r.id).sort(), [...ids].sort());
    assert.ok(hookRows.every((r) => r.n === 1));
    const otlp = (db.prepare("SELECT count(*) AS n FROM events WHERE method = 'otlp'").get() as { n: number }).n;
    assert.equal(otlp, load_.ok * 51, 'every acknowledged export stored (51 GenAI events each)');
    db.close();
  });
});
