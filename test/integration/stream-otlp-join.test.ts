/**
 * Issue 32's "joined, not doubled" on each real CLI that exports OTLP (Pi and Cline export none
 * Beacon receives): one run with the export on to a collector and the stream piped into the same log. The session's token usage is the mock's
 * truth once, from the export's per-call records; the stream's run report is in the session and
 * not counted again; both paths under the stream's own session id, each tool call one row that both
 * paths saw (not Codex's yet: a todo). A missing CLI is a skip.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentBinary, type AgentName } from '../helpers/agent-cli';
import { joinedStreamRun } from '../helpers/stream-otlp-join';
import { STREAM_PLATFORM } from '../helpers/stream-lab';

/** the agents whose stream and OTLP export both reach Beacon; noUsage: the stream carries no tokens (Copilot's) */
const CASES: Array<{ name: AgentName; noUsage?: true }> = [{ name: 'claude' }, { name: 'codex' }, { name: 'gemini' }, { name: 'qwen' }, { name: 'opencode' }, { name: 'copilot', noUsage: true }];

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
      if (c.name !== 'codex') assertCallsJoined(j.streamCalls, c.name === 'opencode');
    });
  }

  // Codex's stream items carry no call id (item_N), its export the provider's (call_…): nothing joins them yet
  it('codex: each of the stream\'s tool calls is one row with the export\'s', { skip: agentBinary('codex').skip, todo: 'codex exec --json names a tool call item_N, its OTLP export call_…: the two paths\' rows of one call are not joined', timeout: 200_000 }, async () => {
    assertCallsJoined((await joinedStreamRun('codex')).streamCalls);
  });
});

/**
 * The mock's two tool calls, each one row that both paths saw. `someMay`: one of the lab's opencode
 * `run --attach` streams here held one of the two calls (load average ~16; the export had both, and
 * the usage was exact): the calls a stream has must still be joined.
 */
function assertCallsJoined(calls: Array<{ callId: string | null; seenBy: string[] }>, someMay = false): void {
  if (someMay) assert.ok(calls.length >= 1 && calls.length <= 2, `the stream's tool calls: ${JSON.stringify(calls)}`);
  else assert.equal(calls.length, 2, `the stream's tool calls: ${JSON.stringify(calls)}`);
  for (const c of calls) assert.ok(c.seenBy.includes('otlp'), `call ${c.callId}: seen by ${c.seenBy.join('+')}, not joined with the export`);
}
