import assert from 'node:assert/strict';
import type { BeaconRecord, Usage } from '../../src/model/record';

/**
 * What Beacon must record for one run of each agent against the mock model (facts:
 * shared/docs/agents-otlp-facts.md): the mock's numbers per step, in Beacon's disjoint buckets
 * (input without the cache, output with reasoning inside), by each agent's own semantics.
 */
export interface AgentExpectation {
  harness: string;
  /** one entry per model call, in time order */
  calls: Usage[];
  callId?: string;
  /** the agent exports the prompt's text */
  prompt: boolean;
}

const openaiSteps: Usage[] = [
  { input_tokens: 900, output_tokens: 40, cache_read: { input_tokens: 300 }, reasoning: { output_tokens: 8 } },
  { input_tokens: 500, output_tokens: 25, cache_read: { input_tokens: 1000 }, reasoning: { output_tokens: 5 } },
];

export const AGENT_EXPECTATIONS: Record<string, AgentExpectation> = {
  // Anthropic's input excludes the cache: passed through, never subtracted again (1200, not 850).
  claude: {
    harness: 'claude-code', prompt: true, callId: 'toolu_beacon_0001',
    calls: [
      { input_tokens: 1200, output_tokens: 40, cache_read: { input_tokens: 300 }, cache_creation: { input_tokens: 50 }, cost_usd: 0.0044775 },
      { input_tokens: 1500, output_tokens: 25, cache_read: { input_tokens: 1000 }, cache_creation: { input_tokens: 20 }, cost_usd: 0.005250000000000001 },
    ],
  },
  codex: {
    harness: 'codex', prompt: true, callId: 'call_beacon_0001',
    calls: openaiSteps.map((u) => ({ ...u, cache_creation: { input_tokens: 0 } })),
  },
  // Gemini's output excludes thoughts: 40 + 8 = 48 output tokens with reasoning inside.
  gemini: {
    harness: 'gemini-cli', prompt: true,
    calls: [
      { input_tokens: 900, output_tokens: 48, cache_read: { input_tokens: 300 }, reasoning: { output_tokens: 8 } },
      { input_tokens: 500, output_tokens: 30, cache_read: { input_tokens: 1000 }, reasoning: { output_tokens: 5 } },
    ],
  },
  // Qwen: Gemini's field names, OpenAI's meaning (output includes thoughts); from 0.24 its tool_call has the model's call id.
  qwen: { harness: 'qwen-code', prompt: true, callId: 'call_beacon_0001', calls: openaiSteps },
  // opencode's title generation is a real (side) model call and counts.
  opencode: {
    harness: 'opencode', prompt: true, callId: 'call_beacon_0001',
    calls: [{ input_tokens: 111, output_tokens: 11, cache_read: { input_tokens: 0 }, reasoning: { output_tokens: 0 } }, ...openaiSteps],
  },
  copilot: { harness: 'copilot-cli', prompt: true, callId: 'call_beacon_0001', calls: openaiSteps },
};

/**
 * What one run of the agent must have left in the log: one session, every record the agent's
 * harness over otlp, one `model.invoked` per model call with the mock's tokens in disjoint buckets
 * (one channel, never two), the shell call once as `command.executed` with its command line (and
 * call id where the agent sends one), and the prompt where the agent exports it. `records` in time order.
 */
export function assertAgentRecords(records: readonly BeaconRecord[], want: AgentExpectation): void {
  const of = (action: string) => records.filter((r) => r.event.action === action);
  assert.ok(records.length > 0, 'records were stored');
  assert.deepEqual([...new Set(records.map((r) => r.harness.name))], [want.harness], 'harness');
  assert.deepEqual([...new Set(records.map((r) => r.harness.collection_method))], ['otlp'], 'collection method');
  assert.equal(new Set(records.map((r) => r.session?.id)).size, 1, 'one session');
  assert.ok(records[0]!.session?.id, 'a session id');
  assert.deepEqual(of('model.invoked').map((r) => r.gen_ai?.usage), want.calls, 'one model.invoked per call, the mock\'s tokens');
  const shell = of('command.executed');
  assert.equal(shell.length, 1, 'the shell call once');
  assert.equal(shell[0]!.command?.command, 'echo beacon-lab');
  if (want.callId) assert.equal(shell[0]!.gen_ai?.tool?.call?.id, want.callId, 'call id');
  assert.equal(of('tool.failed').length + of('tool.invoked').length, 0, 'no other tool record');
  const prompts = of('prompt.submitted');
  if (!want.prompt) assert.equal(prompts.length, 0, 'no prompt record');
  else {
    assert.equal(prompts.length, 1, 'the prompt once');
    assert.match(prompts[0]!.prompt?.text ?? '', /echo beacon-lab/);
  }
}
