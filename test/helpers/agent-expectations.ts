import type { Usage } from '../../src/model/record';

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
  // Qwen: Gemini's field names, OpenAI's meaning (output includes thoughts).
  qwen: { harness: 'qwen-code', prompt: true, calls: openaiSteps },
  // opencode's title generation is a real (side) model call and counts.
  opencode: {
    harness: 'opencode', prompt: false, callId: 'call_beacon_0001',
    calls: [{ input_tokens: 111, output_tokens: 11, cache_read: { input_tokens: 0 }, reasoning: { output_tokens: 0 } }, ...openaiSteps],
  },
  copilot: { harness: 'copilot-cli', prompt: false, callId: 'call_beacon_0001', calls: openaiSteps },
};
