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

/**
 * Token counts: the one usage type. A source fills in what it reported (undefined: it said nothing),
 * each bucket as its `UsageSemantics` says, until `disjointUsage` puts them in Beacon's disjoint
 * buckets (input without either cache bucket, output with reasoning inside) — the meaning every
 * sum over the log (`TokenTotals`) and every price estimate has.
 */
export interface TokenUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
  costUsd?: number;
}

/** Disjoint token usage summed over model calls: every bucket counted, so their sum counts each token once. */
export type TokenTotals = Required<Pick<TokenUsage, 'input' | 'output' | 'cacheRead' | 'cacheWrite'>>;

/** Disjoint totals with, per long-context threshold T, the part from calls whose prompt exceeded T. */
export type TieredTokenTotals = TokenTotals & { above: Record<number, TokenTotals> };

/** All tokens of disjoint totals (reasoning is inside output, never added to it). */
export function totalTokens(b: TokenTotals): number {
  return b.input + b.output + b.cacheRead + b.cacheWrite;
}

/**
 * Token usage in Beacon's disjoint buckets: input without either cache bucket, output with
 * reasoning inside, so summing input, output and the two cache buckets counts every token once.
 * Undefined when the source reported nothing. Every source goes through here with its own
 * semantics, so the arithmetic exists once.
 */
export function disjointUsage(u: TokenUsage, semantics: UsageSemantics): Usage | undefined {
  if (Object.values(u).every((v) => v === undefined)) return undefined;
  const usage: Usage = {};
  if (u.input !== undefined) {
    usage.input_tokens = semantics.inputIncludesCache ? Math.max(0, u.input - (u.cacheRead ?? 0) - (u.cacheWrite ?? 0)) : u.input;
  }
  if (u.output !== undefined) usage.output_tokens = semantics.outputIncludesReasoning ? u.output : u.output + (u.reasoning ?? 0);
  if (u.cacheRead !== undefined) usage.cache_read = { input_tokens: u.cacheRead };
  if (u.cacheWrite !== undefined) usage.cache_creation = { input_tokens: u.cacheWrite };
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
