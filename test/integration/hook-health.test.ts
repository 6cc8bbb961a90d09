import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { jsonl, runBeacon, startCollector } from '../helpers/daemon';
import { hex } from '../helpers/goose-spans';
import { runHookSync } from '../helpers/hooks';
import { traceRequest } from '../helpers/otlp-json';
import { tempDir } from '../helpers/paths';

/**
 * goose ≥ 1.50 says when Beacon's own hook did not do its job (issue 23 item 1): a PreToolUseResult
 * allow with `policy_evaluated: false` (no PreToolUse hook completed: the call ran unchecked), and an
 * `execute_hook` span with `error.type` hook_exit / hook_execution_error naming Beacon's plugin.
 */
const SESSION = '20261201_3';
const executeHook = (plugin: string, errorType: string) => ({
  name: 'execute_hook', traceId: hex(16), spanId: hex(8), start: BigInt(Date.now() - 1000) * 1_000_000n, end: BigInt(Date.now()) * 1_000_000n,
  attributes: { 'gen_ai.operation.name': 'execute_hook', 'goose.hook.event': 'PreToolUse', 'goose.hook.plugin': plugin, 'error.type': errorType, 'session.id': SESSION },
});

describe("Beacon's hooks failing inside goose", () => {
  it('a PreToolUseResult allow with policy_evaluated false is a hook.failed record joined to the call; an evaluated allow records nothing', () => {
    const log = join(tempDir(), 'events.db');
    const payload = { event: 'PreToolUseResult', session_id: SESSION, tool_call_id: 'toolu_77', tool_name: 'developer__shell', tool_input: { command: 'rm -rf build' }, decision: 'allow' };
    assert.equal(runHookSync(log, 'pre-tool-result', { ...payload, policy_evaluated: true }).status, 0);
    assert.equal(runHookSync(log, 'pre-tool-result', { ...payload, policy_evaluated: false }).status, 0);
    const evs = jsonl(runBeacon(['events', '--log', log, '--json']).stdout);
    assert.equal(evs.length, 1);
    const r = evs[0];
    assert.equal(r.event.action, 'hook.failed');
    assert.equal(r.severity, 'medium');
    assert.equal(r.gen_ai.tool.call.id, 'toolu_77');
    assert.equal(r.command.command, 'rm -rf build');
    assert.equal(r.raw.cause, 'policy_not_evaluated');
  });

  it("goose's execute_hook span failing for Beacon's plugin is counted in /health and named by doctor; another plugin's is not Beacon's", async () => {
    const home = tempDir('hook-health-');
    const c = await startCollector({ log: join(home, 'events.db') });
    try {
      const post = (spans: object[]) => fetch(`${c.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(traceRequest(spans as never)) });
      assert.equal((await post([executeHook('beacon-endpoint', 'hook_exit'), executeHook('someone-else', 'hook_exit'), executeHook('beacon-endpoint', 'hook_execution_error')])).status, 200);
      const health = (await (await fetch(`${c.url}/health`)).json()) as { hookFailures?: { count: number; last: string | null } };
      assert.equal(health.hookFailures?.count, 2);
      assert.ok(health.hookFailures?.last);
      const evs = jsonl(runBeacon(['events', '--log', c.log, '--json']).stdout);
      assert.deepEqual(evs.map((e) => e.error.type).sort(), ['hook_execution_error', 'hook_exit']);
      const doctor = runBeacon(['doctor', 'goose', '--log', c.log, '--port', String(c.port)], { HOME: home, BEACON_SERVICE_NO_ACTIVATE: '1' });
      assert.match(doctor.stdout, /hook-failures\s+.*your hooks failed 2 times in the last 24 h, last /);
    } finally {
      await c.stop();
    }
  });
});
