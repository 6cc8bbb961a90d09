/**
 * `--harness` with a name that is none of Beacon's agents and matches nothing: sessions, events and
 * token-usage say what it may have meant (issue 33: "`--harness claud` printed 'no sessions match'
 * and nothing else"). A name Beacon does not know is still a filter (an unknown agent's spans are
 * recorded under its own service.name), so it is hinted at, never refused.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runBeacon } from '../helpers/daemon';
import { runAgentHookSync } from '../helpers/hooks';
import { tempDir } from '../helpers/paths';

function logWithOneClaudePrompt(): string {
  const log = join(tempDir('harness-hint-'), 'events.db');
  const r = runAgentHookSync('claude-code', log, 'UserPromptSubmit', { session_id: 's-hint', hook_event_name: 'UserPromptSubmit', cwd: '/home/alice/proj', prompt: 'hello' });
  assert.equal(r.status, 0, r.stderr);
  return log;
}

describe('--harness that names no agent', () => {
  it('sessions and events: "did you mean" after "no … match"; an alias or a known agent with no rows: no hint', () => {
    const log = logWithOneClaudePrompt();
    const sessions = runBeacon(['sessions', '--log', log, '--harness', 'claud']);
    assert.equal(sessions.status, 0, sessions.stderr);
    assert.equal(sessions.stdout.trim(), 'no sessions match; no agent Beacon knows is named "claud" (did you mean "claude-code"?)');
    const events = runBeacon(['events', '--log', log, '--harness', 'gemni-cli']);
    assert.equal(events.stdout.trim(), 'no events match; no agent Beacon knows is named "gemni-cli" (did you mean "gemini-cli"?)');
    assert.equal(runBeacon(['events', '--log', log, '--harness', 'codex']).stdout.trim(), 'no events match');
    assert.match(runBeacon(['events', '--log', log, '--harness', 'claude']).stdout, /Write|hello|prompt\.submitted/);
  });

  it('token-usage: the hint on stderr, the (empty) report on stdout as before', () => {
    const log = logWithOneClaudePrompt();
    const r = runBeacon(['token-usage', '--log', log, '--harness', 'copilt']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /no model calls match; no agent Beacon knows is named "copilt" \(did you mean "copilot-cli"\?\)/);
    const known = runBeacon(['token-usage', '--log', log, '--harness', 'opencode']);
    assert.equal(known.stderr, '');
  });
});
