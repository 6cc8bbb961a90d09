/**
 * The wrapper on a real CLI (the agents lab's claude pin): `beacon stream claude-code -- claude -p …`
 * with none of the stream flags in the command, on the mock's two-tool script. Beacon adds them (the
 * adapter's stream mode), passes the agent's stream through, records it, and exits with the agent's
 * status — also when the agent fails. Exit codes by signal: stream-wrapper.test.ts (a fake agent).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { agentBinary } from '../helpers/agent-cli';
import { BEACON_BIN, tempDir } from '../helpers/paths';
import { checkStreamRun, streamLabRun } from '../helpers/stream-lab';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('beacon stream claude-code -- claude -p … (the wrapper, on the real CLI)', () => {
  const found = agentBinary('claude');
  it('adds --output-format stream-json --verbose; the same events, session and usage as the pipe gives', { skip: found.skip, timeout: 150_000 }, async () => {
    const r = await streamLabRun('claude', { wrapper: true });
    assert.ok(!r.run.command.slice(r.run.command.indexOf('--')).includes('--output-format'), `the command had no stream flag: ${r.run.command.join(' ')}`);
    checkStreamRun('claude', r, { types: ['write', 'command', 'agent'], failure: { isSuccess: false, exitCode: 2 }, session: UUID }, assert);
  });

  it('exits with the agent\'s own status when the agent fails', { skip: found.skip, timeout: 60_000 }, () => {
    const direct = spawnSync(found.path!, ['--no-such-flag'], { encoding: 'utf8', env: { ...process.env, HOME: tempDir('claude-home-') } });
    assert.notEqual(direct.status, 0, 'claude refuses an unknown flag');
    const wrapped = spawnSync(process.execPath, [BEACON_BIN, 'stream', 'claude-code', '--log', join(tempDir(), 'e.db'), '--', found.path!, '--no-such-flag'], { encoding: 'utf8', env: { ...process.env, HOME: tempDir('claude-home-') } });
    assert.equal(wrapped.status, direct.status, wrapped.stderr);
  });
});
