import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { jsonl, runBeacon } from '../helpers/daemon';
import { runHookInvocation as runHookSync } from '../helpers/hooks';
import { tempDir } from '../helpers/paths';

/**
 * A provider numbering its calls call_1, call_2… anew in every turn reuses call ids within a
 * session: a denial (or an unchecked call) of the second call_1 is a record of its own, never a
 * replay of the first's. Each hook run is one invocation with the launcher's key, as installed.
 */
const SESSION = '20261201_9';
const events = (log: string) => jsonl(runBeacon(['events', '--log', log, '--json', '--session', SESSION]).stdout);
const tool = (event: string, name: string, input: unknown, callId: string) => ({
  event, session_id: SESSION, matcher_context: name, tool_call_id: callId, tool_name: name, tool_input: input, working_dir: '/home/alice/proj',
});
const fresh = () => join(tempDir('hook-denials-'), 'events.db');

function provider(body: string): string {
  const p = join(tempDir('policy-'), 'provider.sh');
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
}

describe('a reused call id denied again', () => {
  it('a call id reused in a later turn and denied again is a second denial, and a second unchecked call a second hook.failed', () => {
    const log = fresh();
    for (const dir of ['/srv/a', '/srv/b']) {
      const call = tool('PreToolUse', 'shell', { command: `rm -rf ${dir}` }, 'call_1');
      runHookSync(log, 'pre-tool', call);
      runHookSync(log, 'pre-tool-result', { ...call, event: 'PreToolUseResult', decision: 'deny', policy_evaluated: true, blocked_by: 'corp-guard', reason: 'destructive', cause: 'policy_denial' });
    }
    const denials = events(log).filter((e) => e.event.action === 'approval.denied');
    assert.deepEqual(denials.map((e) => e.command.command), ['rm -rf /srv/a', 'rm -rf /srv/b']);
    const table = runBeacon(['events', '--log', log, '--session', SESSION]).stdout.split('\n').filter((l) => /call call_1/.test(l));
    assert.deepEqual(table.map((l) => /\bdenied\b/.test(l)), [true, true], table.join('\n'));

    const unchecked = fresh();
    for (const dir of ['/srv/a', '/srv/b']) {
      runHookSync(unchecked, 'pre-tool-result', { ...tool('PreToolUseResult', 'shell', { command: `ls ${dir}` }, 'call_1'), decision: 'allow', policy_evaluated: false });
    }
    assert.deepEqual(events(unchecked).map((e) => `${e.event.action} ${e.command.command}`), ['hook.failed ls /srv/a', 'hook.failed ls /srv/b']);
  });

  it("a call id reused in a later turn and denied again by Beacon's provider is a second denial; goose's report of each adds nothing", () => {
    const log = fresh();
    const judge = provider(`cat >/dev/null; echo '{"decision":"deny","reason":"no"}'`);
    for (const dir of ['/srv/a', '/srv/b']) {
      const call = tool('PreToolUse', 'shell', { command: `ls ${dir}` }, 'call_1');
      assert.deepEqual(JSON.parse(runHookSync(log, 'pre-tool', call, { BEACON_POLICY_PROVIDER: judge }).stdout), { decision: 'block', reason: 'no' });
      runHookSync(log, 'pre-tool-result', { ...call, event: 'PreToolUseResult', decision: 'deny', policy_evaluated: true, blocked_by: 'beacon-endpoint', reason: 'no', cause: 'policy_denial' });
    }
    assert.deepEqual(events(log).map((e) => `${e.event.action} ${e.command.command}`).sort(), ['approval.denied ls /srv/a', 'approval.denied ls /srv/b', 'tool.invoked ls /srv/a', 'tool.invoked ls /srv/b']);
  });
});
