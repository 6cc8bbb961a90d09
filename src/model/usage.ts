import type { Usage } from './record';

/** Token counts as a source reports them: `input` includes both cache buckets (OTel GenAI conventions, goose). */
export interface ReportedUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheCreation?: number;
  reasoning?: number;
  costUsd?: number;
}

/**
 * Token usage in Beacon's disjoint buckets: the stored input is what is left after both cache
 * buckets, so summing the four buckets counts every token once. Reasoning tokens are part of output
 * and never added to it. Undefined when the source reported nothing. Every source (OTLP spans, the
 * stream's `complete` record) goes through here, so the arithmetic exists once.
 */
export function disjointUsage(u: ReportedUsage): Usage | undefined {
  if (Object.values(u).every((v) => v === undefined)) return undefined;
  const usage: Usage = {};
  if (u.input !== undefined) usage.input_tokens = Math.max(0, u.input - (u.cacheRead ?? 0) - (u.cacheCreation ?? 0));
  if (u.output !== undefined) usage.output_tokens = u.output;
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
