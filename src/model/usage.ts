import type { Usage } from './record';

/**
 * What an agent's numbers mean. Sources disagree: goose, Codex, Gemini, Copilot and opencode report
 * input *including* cache reads and writes (the GenAI conventions' reading); Claude Code passes
 * Anthropic's wire value, which *excludes* both. Gemini's output excludes thoughts; Qwen Code reuses
 * Gemini's field names with output *including* them. Each source states its own; nothing assumes.
 */
export interface UsageSemantics {
  inputIncludesCache: boolean;
  outputIncludesReasoning: boolean;
}

/** The GenAI semantic conventions' reading (and goose's, which documents it). */
export const SEMCONV_USAGE: UsageSemantics = Object.freeze({ inputIncludesCache: true, outputIncludesReasoning: true });

/** Token counts as a source reports them; what `input` and `output` cover is the source's `UsageSemantics`. */
export interface ReportedUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheCreation?: number;
  reasoning?: number;
  costUsd?: number;
}

/**
 * Token usage in Beacon's disjoint buckets: input without either cache bucket, output with
 * reasoning inside, so summing input, output and the two cache buckets counts every token once.
 * Undefined when the source reported nothing. Every source goes through here with its own
 * semantics, so the arithmetic exists once.
 */
export function disjointUsage(u: ReportedUsage, semantics: UsageSemantics): Usage | undefined {
  if (Object.values(u).every((v) => v === undefined)) return undefined;
  const usage: Usage = {};
  if (u.input !== undefined) {
    usage.input_tokens = semantics.inputIncludesCache ? Math.max(0, u.input - (u.cacheRead ?? 0) - (u.cacheCreation ?? 0)) : u.input;
  }
  if (u.output !== undefined) usage.output_tokens = semantics.outputIncludesReasoning ? u.output : u.output + (u.reasoning ?? 0);
  if (u.cacheRead !== undefined) usage.cache_read = { input_tokens: u.cacheRead };
  if (u.cacheCreation !== undefined) usage.cache_creation = { input_tokens: u.cacheCreation };
  if (u.reasoning !== undefined) usage.reasoning = { output_tokens: u.reasoning };
  if (u.costUsd !== undefined && Number.isFinite(u.costUsd) && u.costUsd >= 0) usage.cost_usd = u.costUsd;
  return usage;
}

/**
 * Long-context price tiers: calls whose prompt (input plus both cache buckets) exceeds one of these
 * are priced at the tier's rates (Anthropic and Gemini: 200k; OpenAI: 272k). The usage query splits
 * its sums on exactly these, and the estimate applies only these.
 */
export const LONG_CONTEXT_THRESHOLDS = [200_000, 272_000] as const;
