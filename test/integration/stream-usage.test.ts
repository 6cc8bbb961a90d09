/**
 * A run's usage counted once: the same Claude Code session sent by OTLP (its real export, one
 * record per model call) and by its stream (`result`: the run's totals) is not doubled; a session
 * whose calls never arrived one by one is counted from its stream's run report alone.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toRows } from '../../src/ingest/rows';
import { decodeProtoLogs } from '../../src/receiver/signals/logs';
import { logEvents } from '../../src/sources/dispatch';
import { EventLog } from '../../src/store/log/event-log';
import { jsonl, runBeacon } from '../helpers/daemon';
import { BEACON_BIN, repoRoot, tempDir } from '../helpers/paths';

const j = (o: unknown) => JSON.stringify(o);

/** A Claude stream of one run of `session`: init, one message, the result with these totals. */
function claudeRun(session: string, usage: { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number; output_tokens: number }): string {
  return [
    j({ type: 'system', subtype: 'init', session_id: session, cwd: '/w', model: 'claude-sonnet-4-5' }),
    j({ type: 'assistant', message: { id: 'msg_1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Done.' }], usage: { ...usage, output_tokens: 1 } }, session_id: session }),
    j({ type: 'result', subtype: 'success', is_error: false, session_id: session, usage, modelUsage: { 'claude-sonnet-4-5': {} } }),
  ].join('\n') + '\n';
}

function pipe(log: string, input: string) {
  const r = spawnSync(process.execPath, [BEACON_BIN, 'stream', 'claude-code', '--log', log, '--tee'], { input, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, input, '--tee passes the stream through unchanged');
}

function usage(log: string, args: string[]) {
  const r = runBeacon(['token-usage', '--log', log, '--json', ...args]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe('beacon token-usage: a stream run report counts only for a session without per-call records', () => {
  it('the same session by OTLP and by stream is not doubled; a stream-only session is counted from its result', () => {
    const log = join(tempDir('stream-usage-'), 'events.db');
    const db = EventLog.open(log);
    db.append(toRows(logEvents(decodeProtoLogs(readFileSync(join(repoRoot(), 'test', 'fixtures', 'agents', 'claude', '2-logs.pb')))).events).rows);
    db.close();
    const calls = jsonl(runBeacon(['events', '--log', log, '--json']).stdout).filter((e) => e.event.action === 'model.invoked');
    const session: string = calls[0].session.id;
    const otlp = usage(log, ['--session', session]).totals;
    assert.equal(otlp.model_calls, 2);

    // The same session's stream: its result restates what the OTLP calls already hold.
    const u = otlp.usage;
    pipe(log, claudeRun(session, { input_tokens: u.input_tokens, cache_read_input_tokens: u.cache_read_input_tokens, cache_creation_input_tokens: u.cache_creation_input_tokens, output_tokens: u.output_tokens }));
    const joined = jsonl(runBeacon(['events', '--log', log, '--json', '--session', session]).stdout);
    assert.ok(joined.some((e) => e.event.action === 'usage.reported' && e.harness.collection_method === 'stream'), 'the run report is recorded in the session');
    assert.deepEqual(usage(log, ['--session', session]).totals, otlp, 'not doubled: the per-call records count, the run report does not');

    // A session only the stream saw: its run report is its usage.
    pipe(log, claudeRun('stream-only', { input_tokens: 3900, cache_read_input_tokens: 1600, cache_creation_input_tokens: 120, output_tokens: 105 }));
    const alone = usage(log, ['--session', 'stream-only']).totals;
    assert.deepEqual(alone.usage, { input_tokens: 3900, output_tokens: 105, cache_read_input_tokens: 1600, cache_creation_input_tokens: 120, reasoning_output_tokens: 0 });
    assert.equal(alone.model_calls, 0, 'a run report is no model call');
    assert.equal(alone.total_tokens, 3900 + 105 + 1600 + 120);

    // Both together, and by harness: each token once.
    const all = usage(log, []).totals;
    assert.equal(all.total_tokens, otlp.total_tokens + alone.total_tokens);
    const byModel = usage(log, ['--by', 'session']).groups.map((g: { key: string; total_tokens: number }) => [g.key, g.total_tokens]).sort();
    assert.deepEqual(byModel, [[session, otlp.total_tokens], ['stream-only', alone.total_tokens]].sort());

    // A replayed stream adds nothing.
    pipe(log, claudeRun('stream-only', { input_tokens: 3900, cache_read_input_tokens: 1600, cache_creation_input_tokens: 120, output_tokens: 105 }));
    assert.deepEqual(usage(log, ['--session', 'stream-only']).totals, alone);
  });
});
