/**
 * The real Pi CLI (the agents lab's pin) in its JSON mode (`pi --mode json`) on the mock's two-tool
 * script, its stdout piped through the compiled `beacon stream pi`, and the same through the wrapper
 * (`beacon stream pi -- pi -p …`, which adds `--mode json`). A missing CLI is a skip with its reason, never a pass.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentBinary } from '../helpers/agent-cli';
import { checkStreamRun, streamLabRun } from '../helpers/stream-lab';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('pi --mode json … | beacon stream pi --tee', () => {
  const found = agentBinary('pi');
  it('the write, the failed bash (exit code 2 from its result text), the answer; the header\'s session id on every event; each call\'s usage the mock\'s', { skip: found.skip, timeout: 150_000 }, async () => {
    const r = await streamLabRun('pi');
    checkStreamRun('pi', r, { types: ['write', 'command', 'agent'], failure: { isSuccess: false, exitCode: 2 }, session: UUID }, assert);
  });
  it('through the wrapper: the same events', { skip: found.skip, timeout: 150_000 }, async () => {
    const r = await streamLabRun('pi', { wrapper: true });
    checkStreamRun('pi', r, { types: ['write', 'command', 'agent'], failure: { isSuccess: false, exitCode: 2 }, session: UUID }, assert);
  });
});
