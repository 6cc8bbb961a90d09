/**
 * Issue 30: the lab's deny run after `beacon install <agent>` alone (hooks and OTLP, content capture
 * off), a policy provider denying the command that makes SIDE-EFFECT: the denied call is one row,
 * `approval.denied`, for agents whose hooks send no call id (Gemini CLI, Copilot CLI: the denial takes
 * the OTLP record's call, store/log/call-join.ts) and for those whose OTLP record of it said
 * `command.executed` (Qwen Code). A missing CLI is a skip. (opencode's and Pi's own files run theirs.)
 */
import { describe, it } from 'node:test';
import type { AgentName } from '../helpers/agent-cli';
import { assertDeniedCall } from '../helpers/install-both-checks';
import { installAloneRun } from '../helpers/install-both-lab';

// Gemini sends no span for a call its hook blocked: its row keeps Beacon's pairing id, the only one the call has
const RUNS: Array<[AgentName, string, { withOtlp: boolean; agentCallId: boolean }]> = [
  ['gemini', 'gemini-cli', { withOtlp: true, agentCallId: false }],
  ['copilot', 'copilot-cli', { withOtlp: true, agentCallId: true }],
  ['qwen', 'qwen-code', { withOtlp: true, agentCallId: true }],
];

describe('beacon install <agent> alone, a deny policy: the denied call is one approval.denied row', () => {
  for (const [agent, id, expect] of RUNS) {
    it(id, { timeout: 150_000 }, async (t) => {
      const r = await installAloneRun(t, agent, id, [], undefined, {}, { deny: true });
      if (r) assertDeniedCall(r, id, expect);
    });
  }
});
