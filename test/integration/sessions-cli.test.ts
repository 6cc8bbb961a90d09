import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { jsonl, runBeacon } from '../helpers/daemon';
import { runAgentHookSync, runHookSync } from '../helpers/hooks';
import { tempDir } from '../helpers/paths';

describe('beacon sessions', () => {
  it('one line per session: repository, tool calls counted once per call, failures and denials', () => {
    const log = join(tempDir('sessions-'), 'events.db');
    const call = (id: string, command: string, session = 'ses_a') => ({ event: 'PreToolUse', session_id: session, matcher_context: 'shell', tool_call_id: id, tool_name: 'shell', tool_input: { command }, working_dir: '/home/alice/proj' });
    runHookSync(log, 'prompt-submit', { event: 'UserPromptSubmit', session_id: 'ses_a', message: 'fix it' });
    runHookSync(log, 'pre-tool', call('c1', 'ls'));
    runHookSync(log, 'post-tool', { ...call('c1', 'ls'), event: 'PostToolUse' });
    runHookSync(log, 'pre-tool', call('c2', 'cargo test'));
    runHookSync(log, 'post-tool', { ...call('c2', 'cargo test'), event: 'PostToolUseFailure' });
    runHookSync(log, 'pre-tool-result', { ...call('c3', 'rm -rf /'), event: 'PreToolUseResult', decision: 'deny', blocked_by: 'guard', reason: 'no' });
    runHookSync(log, 'prompt-submit', { event: 'UserPromptSubmit', session_id: 'ses_b', message: '\u001b[31mred\u001b[0m' });

    const r = runBeacon(['sessions', '--log', log, '--json']);
    assert.equal(r.status, 0, r.stderr);
    const rows = jsonl(r.stdout);
    assert.deepEqual(rows.map((s) => s.id).sort(), ['ses_a', 'ses_b']);
    const a = rows.find((s) => s.id === 'ses_a');
    assert.equal(a.repository, '/home/alice/proj');
    assert.equal(a.failed_calls, 1);
    // the failed `cargo test` (PostToolUseFailure: tool.failed with its command) is a failed command, counted with the commands
    assert.equal(a.failed_commands, 1);
    assert.equal(a.tool_calls_by_kind['command.executed'], 2);
    assert.equal(a.tool_calls_by_kind.tool, undefined);
    assert.equal(a.denied_calls, 1);
    assert.ok(a.tool_calls >= 2, `tool calls ${a.tool_calls}`);
    assert.equal(a.prompts, 1);

    const table = runBeacon(['sessions', '--log', log], { COLUMNS: '200' });
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /^SESSION\s+AGENT\s+START/m);
    assert.match(table.stdout, /ses_a\s+goose .*\/home\/alice\/proj/);
    assert.match(table.stdout, /ses_a .* 1\+0\/1 /, 'one failed command, no other failed tool, one denial');
    assert.ok(!table.stdout.includes('\u001b'), 'no escape sequence reaches the terminal');
  });

  it('--harness picks one agent, by its name or an alias, in sessions and events (issue 33)', () => {
    const log = join(tempDir('sessions-harness-'), 'events.db');
    runHookSync(log, 'prompt-submit', { event: 'UserPromptSubmit', session_id: 'ses_goose', message: 'goose prompt' });
    runAgentHookSync('claude-code', log, 'UserPromptSubmit', { session_id: 'ses_claude', hook_event_name: 'UserPromptSubmit', cwd: '/home/alice/app', prompt: 'claude prompt' });
    runAgentHookSync('codex', log, 'UserPromptSubmit', { session_id: 'ses_codex', hook_event_name: 'UserPromptSubmit', cwd: '/home/alice/app', prompt: 'codex prompt' });
    const all = jsonl(runBeacon(['sessions', '--log', log, '--json']).stdout);
    assert.deepEqual(all.map((s) => [s.id, s.harness]).sort(), [['ses_claude', 'claude-code'], ['ses_codex', 'codex'], ['ses_goose', 'goose']]);
    for (const name of ['claude-code', 'claude', 'Claude']) {
      const r = runBeacon(['sessions', '--log', log, '--json', '--harness', name]);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(jsonl(r.stdout).map((s) => s.id), ['ses_claude'], name);
      const ev = runBeacon(['events', '--log', log, '--json', '--harness', name]);
      assert.equal(ev.status, 0, ev.stderr);
      const recs = jsonl(ev.stdout);
      assert.ok(recs.length > 0 && recs.every((e) => e.harness.name === 'claude-code'), JSON.stringify(recs.map((e) => e.harness.name)));
    }
    const table = runBeacon(['sessions', '--log', log, '--harness', 'goose-cli'], { COLUMNS: '200' });
    assert.match(table.stdout, /^ses_goose\s+goose\s/m);
    assert.doesNotMatch(table.stdout, /ses_claude|ses_codex/);
  });

  it('a missing log is a message, bad flags are usage errors', () => {
    const log = join(tempDir('sessions-'), 'none.db');
    const r = runBeacon(['sessions', '--log', log]);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /no sessions yet/);
    assert.equal(runBeacon(['sessions', '--log', log, '--sort', 'cost']).status, 2);
    assert.equal(runBeacon(['sessions', '--help']).status, 0);
  });
});
