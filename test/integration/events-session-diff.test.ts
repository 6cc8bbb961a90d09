/**
 * `beacon events --session` as a review of a session (issue 30's "the write with its diff"): each
 * write's recorded diff under its line, escaped, bounded; a long call id shortened before the
 * command line is (Gemini's `run_shell_command__call_…` left `run_shell_command: ls…` at 160 columns).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runBeacon } from '../helpers/daemon';
import { runAgentHookSync } from '../helpers/hooks';
import { tempDir } from '../helpers/paths';

const SESSION = 'e6c3b746-100a-45ab-87e8-8f4f3a5f905e';

/** Claude Code's Write of `content` to `file`, pre and post, as its hooks send them (sh -c, stdin). */
function claudeWrite(log: string, file: string, content: string, id: string): void {
  const base = { session_id: SESSION, transcript_path: '/nonexistent.jsonl', cwd: '/home/alice/proj', tool_name: 'Write', tool_input: { file_path: file, content }, tool_use_id: id };
  for (const [event, extra] of [['PreToolUse', {}], ['PostToolUse', { tool_response: { type: 'create', filePath: file } }]] as const) {
    const r = runAgentHookSync('claude-code', log, event, { ...base, ...extra, hook_event_name: event });
    assert.equal(r.status, 0, r.stderr);
  }
}

function logWithWrites(): string {
  const log = join(tempDir('events-diff-'), 'events.db');
  claudeWrite(log, '/home/alice/proj/note.txt', 'hello from the lab\n', 'toolu_01Note');
  // A hostile line: an escape sequence that would clear the screen, and a forged table row
  claudeWrite(log, '/home/alice/proj/evil.txt', 'a\u001b[2Jb\n', 'toolu_02Evil');
  const long = Array.from({ length: 45 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  claudeWrite(log, '/home/alice/proj/long.txt', long, 'toolu_03Long');
  return log;
}

describe('beacon events --session shows each write\'s diff', () => {
  it('under the write\'s line: the hunk, escape sequences escaped, a long diff cut with where the rest is', () => {
    const log = logWithWrites();
    const r = runBeacon(['events', '--log', log, '--session', SESSION], { COLUMNS: '' });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.includes('note.txt') && l.includes('file.modified'));
    assert.ok(at > 0, r.stdout);
    assert.deepEqual(lines.slice(at + 1, at + 5).map((l) => l.trim()), ['--- a/note.txt', '+++ b/note.txt', '@@ -0,0 +1 @@', '+hello from the lab']);
    assert.ok(!r.stdout.includes('\u001b'), 'no raw escape reaches the terminal');
    assert.ok(r.stdout.includes('+a\\u001b[2Jb'), r.stdout);
    assert.ok(r.stdout.includes('+line 17') && !r.stdout.includes('+line 18'), 'twenty diff lines shown');
    assert.ok(r.stdout.includes('… 28 more lines (beacon events --raw --tool-call toolu_03Long)'), r.stdout);
  });

  it('not without --session unless --diff; --no-diff hides them with --session', () => {
    const log = logWithWrites();
    const plain = runBeacon(['events', '--log', log], { COLUMNS: '' });
    assert.ok(plain.stdout.includes('note.txt') && !plain.stdout.includes('+hello from the lab'), plain.stdout);
    const asked = runBeacon(['events', '--log', log, '--diff'], { COLUMNS: '' });
    assert.ok(asked.stdout.includes('+hello from the lab'), asked.stdout);
    const hidden = runBeacon(['events', '--log', log, '--session', SESSION, '--no-diff'], { COLUMNS: '' });
    assert.ok(!hidden.stdout.includes('+hello from the lab'), hidden.stdout);
  });

  it('at 80 columns every line fits, the diff too', () => {
    const r = runBeacon(['events', '--log', logWithWrites(), '--session', SESSION], { COLUMNS: '80' });
    assert.equal(r.status, 0, r.stderr);
    for (const l of r.stdout.trimEnd().split('\n')) assert.ok(l.length <= 80, `${l.length} > 80: ${l}`);
    assert.ok(r.stdout.includes('+hello from the lab'), r.stdout);
  });
});

describe('a long call id gives way before the command line does', () => {
  it('Gemini\'s run_shell_command__call_… id keeps its end so the failing command stays readable', () => {
    const log = join(tempDir('events-longid-'), 'events.db');
    const base = { session_id: '354a40a5-6f0e-4f1e-9a57-0c6f1d1b2e11', cwd: '/home/alice/proj', tool_name: 'run_shell_command', tool_input: { command: 'touch /home/alice/proj/SIDE-EFFECT && ls /nonexistent-dir' }, tool_call_id: 'run_shell_command__call_beacon_0002' };
    assert.equal(runAgentHookSync('qwen-code', log, 'PreToolUse', { ...base, hook_event_name: 'PreToolUse' }).status, 0);
    const post = { ...base, hook_event_name: 'PostToolUse', tool_response: { error: 'ls: cannot access', exit_code: 2 } };
    assert.equal(runAgentHookSync('qwen-code', log, 'PostToolUse', post).status, 0);
    const r = runBeacon(['events', '--log', log], { COLUMNS: '110' });
    assert.equal(r.status, 0, r.stderr);
    const row = r.stdout.split('\n').find((l) => l.includes('run_shell_command'));
    assert.ok(row?.includes('touch /home/alice/proj/SIDE-EFFECT && ls /nonexistent-dir'), `the command is readable:\n${r.stdout}`);
    assert.ok(row?.includes('(call …_beacon_0002)'), `the id shortened to its end:\n${r.stdout}`);
  });
});
