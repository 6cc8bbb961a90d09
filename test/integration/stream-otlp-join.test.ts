/**
 * Issue 32's "joined, not doubled" on each real CLI that exports OTLP (Claude Code's own case is in
 * stream-real-claude.test.ts; Pi and Cline export none Beacon receives): one run with the export on
 * to a collector and the stream piped into the same log. The session's token usage is the mock's
 * truth once, from the export's per-call records; the stream's run report is in the session and
 * not counted again; both paths under the stream's own session id. A missing CLI is a skip.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentBinary, type AgentName } from '../helpers/agent-cli';
import { joinedStreamRun } from '../helpers/stream-otlp-join';
import { STREAM_PLATFORM } from '../helpers/stream-lab';

/** the agents whose stream and OTLP export both reach Beacon; noUsage: the stream carries no tokens (Copilot's) */
const CASES: Array<{ name: AgentName; noUsage?: true }> = [{ name: 'codex' }, { name: 'gemini' }, { name: 'qwen' }, { name: 'opencode' }, { name: 'copilot', noUsage: true }];

describe('<agent stream> | beacon stream <agent> --tee, with the same run\'s OTLP export in the same log', () => {
  for (const c of CASES) {
    const found = agentBinary(c.name);
    it(`${STREAM_PLATFORM[c.name]}: one session, both paths; token-usage the mock's truth once`, { skip: found.skip, timeout: 200_000 }, async () => {
      const j = await joinedStreamRun(c.name);
      assert.equal(j.lab.run.code, 0, j.lab.run.stderr.slice(-2000));
      assert.equal(j.lab.tee.status, 0, j.lab.tee.stderr);
      assert.notEqual(j.session, '', 'the stream named its session');
      assert.deepEqual(j.methods, ['otlp', 'stream'], `session ${j.session}: both paths`);
      assert.equal(j.usage.model_calls, j.lab.modelCalls, 'every model call arrived by OTLP, once');
      // the export's truth: Qwen's carries the reasoning count its stream drops
      assert.deepEqual(j.usage.usage, j.lab.wireTruth, 'each token once: the export\'s calls, not also the stream\'s report');
      assert.equal(j.streamReported, !c.noUsage, 'the stream\'s run report is recorded in the session (and not counted)');
    });
  }
});
