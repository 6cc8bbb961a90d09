import type { Usage } from '../model/record';
import type { Attributes } from '../model/span';
import { numberAttr, tokenAttr } from './attributes';

/**
 * Token usage in Beacon's disjoint buckets. `gen_ai.usage.input_tokens` includes cache reads and
 * writes (the semantic conventions say so, and goose documents it), so the stored input is what is
 * left after both cache buckets: summing the four buckets counts every token once. The source's own
 * figure stays in `raw.attributes`. Reasoning tokens are part of output and never added to it.
 */
export function extractUsage(attrs: Attributes): Usage | undefined {
  const inputReported = tokenAttr(attrs, 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens');
  const output = tokenAttr(attrs, 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens');
  const cacheRead = tokenAttr(attrs, 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens');
  const cacheCreation = tokenAttr(
    attrs,
    'gen_ai.usage.cache_creation.input_tokens',
    'gen_ai.usage.cache_write.input_tokens',
    'gen_ai.usage.input_tokens.cache_write',
    'gen_ai.usage.cache_creation_input_tokens',
  );
  const reasoning = tokenAttr(attrs, 'gen_ai.usage.reasoning.output_tokens', 'gen_ai.usage.reasoning_tokens');
  const cost = numberAttr(attrs, 'gen_ai.usage.cost');
  if ([inputReported, output, cacheRead, cacheCreation, reasoning, cost].every((v) => v === undefined)) return undefined;

  const usage: Usage = {};
  if (inputReported !== undefined) usage.input_tokens = Math.max(0, inputReported - (cacheRead ?? 0) - (cacheCreation ?? 0));
  if (output !== undefined) usage.output_tokens = output;
  if (cacheRead !== undefined) usage.cache_read = { input_tokens: cacheRead };
  if (cacheCreation !== undefined) usage.cache_creation = { input_tokens: cacheCreation };
  if (reasoning !== undefined) usage.reasoning = { output_tokens: reasoning };
  if (cost !== undefined && cost >= 0) usage.cost_usd = cost;
  return usage;
}
