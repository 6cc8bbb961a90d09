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
    // With the lab's `run --attach`, whether the final text step reaches the stream is a race between
    // opencode's exit and its event bus: usually the stream ends after the two tool steps (the text step
    // and the title side call are in no line), sometimes the text step's part and step_finish arrive too
    // (seen in CI). Its truth is the steps the stream holds, so either way every step it printed counts once.
    const finalStep = /"reason":"stop"/.test(r.run.stdout);
    const s1 = MOCK_USAGE.step1;
    const s2 = MOCK_USAGE.step2;
    const steps = finalStep ? [s1, s1, s2] : [s1, s1];
    const sum = (f: (u: typeof s1) => number): number => steps.reduce((n, u) => n + f(u), 0);
    const truth = { input_tokens: sum((u) => u.input - u.cached), output_tokens: sum((u) => u.output), cache_read_input_tokens: sum((u) => u.cached), cache_creation_input_tokens: 0, reasoning_output_tokens: sum((u) => u.reasoning) };
    const types = finalStep ? ['write', 'command', 'agent'] : ['write', 'command'];
    checkStreamRun('opencode', r, { types, failure: { isSuccess: false, exitCode: 2 }, session: /^ses_[A-Za-z0-9]+$/, truth, messages: finalStep ? 1 : 0 }, assert);
  });
});
