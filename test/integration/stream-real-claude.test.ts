/**
 * The real claude CLI (the agents lab's pin) in its stream mode on the mock's two-tool script, its
 * stdout piped through the compiled `beacon stream`. A missing CLI is a skip with its reason, never a pass.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentBinary } from '../helpers/agent-cli';
import { checkStreamRun, streamLabRun } from '../helpers/stream-lab';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('claude -p --output-format stream-json --verbose | beacon stream claude-code --tee', () => {
  const found = agentBinary('claude');
  it('the write, the failed Bash (exit 2 from its result text), the message; the result\'s usage, never the placeholder output of 1', { skip: found.skip, timeout: 150_000 }, async () => {
    const r = await streamLabRun('claude');
    checkStreamRun('claude', r, { types: ['write', 'command', 'agent'], failure: { isSuccess: false, exitCode: 2 }, session: UUID }, assert);
  });
  // joined, not doubled, with the same session's OTLP export: stream-otlp-join.test.ts, as for every agent exporting both
});
