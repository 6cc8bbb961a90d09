/**
 * The real opencode CLI (the agents lab's pin, `run --attach` to its server) in its JSON mode on the
 * mock's two-tool script, its stdout piped through the compiled `beacon stream`. A missing CLI is a
 * skip with its reason, never a pass.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentBinary } from '../helpers/agent-cli';
import { MOCK_USAGE } from '../helpers/mock-model';
import { checkStreamRun, streamLabRun } from '../helpers/stream-lab';

describe('opencode run --format json | beacon stream opencode --tee', () => {
  const found = agentBinary('opencode');
  it('write, the failed bash (metadata.exit 2), each step\'s tokens; the ses_ id as the session', { skip: found.skip, timeout: 170_000 }, async () => {
    const r = await streamLabRun('opencode');
    // Observed with the lab's `run --attach`: the stream ends after the two tool steps (the final
    // text step and the title side call are in no line), so its truth is those two calls.
    const u = MOCK_USAGE.step1;
    const truth = { input_tokens: 2 * (u.input - u.cached), output_tokens: 2 * u.output, cache_read_input_tokens: 2 * u.cached, cache_creation_input_tokens: 0, reasoning_output_tokens: 2 * u.reasoning };
    checkStreamRun('opencode', r, { types: ['write', 'command'], failure: { isSuccess: false, exitCode: 2 }, session: /^ses_[A-Za-z0-9]+$/, truth, messages: 0 }, assert);
  });
});
