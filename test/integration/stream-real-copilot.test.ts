/**
 * The real copilot CLI (the agents lab's pin) in its JSON mode on the mock's two-tool script, its
 * stdout piped through the compiled `beacon stream`. A missing CLI is a skip with its reason, never a pass.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentBinary } from '../helpers/agent-cli';
import { checkStreamRun, streamLabRun } from '../helpers/stream-lab';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('copilot -p … --output-format json | beacon stream copilot-cli --tee', () => {
  const found = agentBinary('copilot');
  it('create, the failed bash (success true but exit code 2: a failure), the message; the session id of the last line on every event; no usage in this stream', { skip: found.skip, timeout: 150_000 }, async () => {
    const r = await streamLabRun('copilot');
    checkStreamRun('copilot', r, { types: ['write', 'command', 'agent'], failure: { isSuccess: false, exitCode: 2 }, session: UUID, noUsage: true }, assert);
  });
});
