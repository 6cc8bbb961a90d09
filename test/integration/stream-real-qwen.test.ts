/**
 * The real qwen CLI (the agents lab's pin) in its stream mode on the mock's two-tool script, its
 * stdout piped through the compiled `beacon stream`. A missing CLI is a skip with its reason, never a pass.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentBinary } from '../helpers/agent-cli';
import { checkStreamRun, streamLabRun } from '../helpers/stream-lab';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('qwen -p … --output-format stream-json | beacon stream qwen-code --tee', () => {
  const found = agentBinary('qwen');
  it('write_file, the command (is_error false in Qwen\'s stream, no exit code), the message; the result\'s usage', { skip: found.skip, timeout: 150_000 }, async () => {
    const r = await streamLabRun('qwen');
    checkStreamRun('qwen', r, { types: ['unknown', 'write', 'command', 'agent'], failure: { isSuccess: false }, session: UUID }, assert);
  });
});
