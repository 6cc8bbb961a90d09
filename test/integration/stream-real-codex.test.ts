/**
 * The real codex CLI (the agents lab's pin) in its stream mode on the mock's two-tool script, its
 * stdout piped through the compiled `beacon stream`. A missing CLI is a skip with its reason, never a pass.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentBinary } from '../helpers/agent-cli';
import { checkStreamRun, streamLabRun } from '../helpers/stream-lab';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('codex exec --json | beacon stream codex --tee', () => {
  const found = agentBinary('codex');
  it('the shell write, the failed command (status failed, exit 2), the message; the turn\'s usage; the thread id as the session', { skip: found.skip, timeout: 150_000 }, async () => {
    const r = await streamLabRun('codex');
    // Codex's first item is its warning about the mock's unknown model slug: an error event, not fatal
    checkStreamRun('codex', r, { types: ['error', 'command', 'command', 'agent'], failure: { isSuccess: false, exitCode: 2 }, session: UUID }, assert);
  });
});
