/**
 * Tool arguments nested 5,000 deep (30 KB), on every path (issue 22 item 14). On main: the hook
 * route answered 503 "Maximum call stack size exceeded", the fallback recorded nothing, and the
 * same nesting in a span's gen_ai.tool.call.arguments was a 500 that lost the whole export. Now the
 * deep part is cut and marked, and the event is kept with everything above it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { jsonl, runBeacon, startCollector, type RunningCollector } from '../helpers/daemon';
import { installGooseHooks, runGooseHook } from '../helpers/launcher';
import { traceRequest } from '../helpers/otlp-json';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const DEPTH = 5000;
/** `{"a":{"a":…"bottom"…}}` as text: building it as an object would overflow this process's own JSON.stringify. */
const DEEP = `${'{"a":'.repeat(DEPTH)}"bottom"${'}'.repeat(DEPTH)}`;
const MARK = '...[truncated: nested too deep]';

const hookPayload = (id: string) => `{"event":"PostToolUse","session_id":"deep-hook","matcher_context":"shell","tool_call_id":"${id}","tool_name":"developer__shell","working_dir":"/home/alice/proj","tool_input":{"command":"ls -la","deep":${DEEP}}}`;

describe(`arguments nested ${DEPTH} deep`, () => {
  let c: RunningCollector;
  let dir: string;
  let log: string;

  before(async () => {
    dir = tempDir('deep-');
    log = join(dir, 'events.db');
    c = await startCollector({ log });
  });
  after(async () => {
    await c?.stop();
  });

  const stored = (logPath: string, session: string) => jsonl(runBeacon(['events', '--log', logPath, '--json', '--session', session, '--since', '3650d']).stdout);

  /** the kept event: the command above the cut, the deep value cut and marked */
  function assertCut(args: { command?: string; deep?: unknown } | undefined, what: string) {
    assert.ok(args, `${what}: arguments stored`);
    assert.equal(args.command, 'ls -la', what);
    const text = JSON.stringify(args.deep);
    assert.ok(text.includes(MARK), `${what}: marked`);
    assert.ok(!text.includes('bottom'), `${what}: cut`);
  }

  it('the hook fast path records it (was 503) and answers goose', () => {
    const fast = installGooseHooks(c.port, log, '/nonexistent/node');
    const r = runGooseHook(fast, 'PostToolUse', hookPayload('toolu_deep_fast'));
    assert.equal(r.status, 0, r.stderr);
    const evs = stored(log, 'deep-hook');
    assert.equal(evs.length, 1, 'recorded on the fast path (the pinned Node.js does not exist)');
    assertCut(evs[0].gen_ai?.tool?.call?.arguments, 'fast path');
  });

  it('the hook fallback records it (recorded nothing)', () => {
    const directLog = join(dir, 'direct', 'events.db');
    const fallback = installGooseHooks(1, directLog);
    const r = runGooseHook(fallback, 'PostToolUse', hookPayload('toolu_deep_slow'));
    assert.equal(r.status, 0, r.stderr);
    const evs = stored(directLog, 'deep-hook');
    assert.equal(evs.length, 1, r.stderr);
    assertCut(evs[0].gen_ai?.tool?.call?.arguments, 'fallback');
  });

  it('an OTLP export keeps every span (was a 500 losing the export)', async () => {
    const t0 = 1787301000000000000n;
    const spans = [
      { name: 'dispatch_tool_call', traceId: 'ab'.repeat(16), spanId: '01'.repeat(8), start: t0, end: t0 + 900n, attributes: { 'session.id': 'deep-otlp', 'gen_ai.conversation.id': 'deep-otlp', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'shell', 'gen_ai.tool.call.id': 'call_deep', 'gen_ai.tool.call.arguments': `{"command":"ls -la","deep":${DEEP}}` } },
      { name: 'dispatch_tool_call', traceId: 'ab'.repeat(16), spanId: '02'.repeat(8), start: t0 + 1000n, end: t0 + 1900n, attributes: { 'session.id': 'deep-otlp', 'gen_ai.conversation.id': 'deep-otlp', 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'shell', 'gen_ai.tool.call.id': 'call_shallow', 'gen_ai.tool.call.arguments': '{"command":"pwd"}' } },
    ];
    const r = await fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(spans)), headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 200, await r.text());
    const evs = stored(log, 'deep-otlp');
    const deep = evs.find((e) => e.gen_ai?.tool?.call?.id === 'call_deep');
    assert.ok(evs.some((e) => e.gen_ai?.tool?.call?.id === 'call_shallow'), 'the rest of the export is kept');
    assertCut(deep?.gen_ai?.tool?.call?.arguments, 'OTLP');
  });

  it('beacon stream goose records it', () => {
    const line = `{"type":"message","message":{"id":"msg_deep","role":"assistant","created":1787301000,"content":[{"type":"toolRequest","id":"toolu_stream_deep","toolCall":{"status":"success","value":{"name":"shell","arguments":{"command":"ls -la","deep":${DEEP}}}}}],"metadata":{}}}`;
    const done = JSON.stringify({ type: 'complete', total_tokens: 10 });
    const streamLog = join(dir, 'stream', 'events.db');
    const s = spawnSync('sh', ['-c', `"${process.execPath}" "${BEACON_BIN}" stream goose --log '${streamLog}'`], { input: `${line}\n${done}\n`, encoding: 'utf8' });
    assert.equal(s.status, 0, s.stderr);
    const evs = jsonl(runBeacon(['events', '--log', streamLog, '--json', '--since', '3650d']).stdout);
    const call = evs.find((e) => e.gen_ai?.tool?.call?.arguments);
    assertCut(call?.gen_ai?.tool?.call?.arguments, 'stream');
  });
});
