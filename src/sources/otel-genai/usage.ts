import type { Usage } from '../../model/record';
import { disjointUsage, type UsageSemantics } from '../../model/usage';
import type { Attributes } from '../../model/span';
import { numberAttr, tokenAttr } from '../attributes';

/**
 * A span's token usage in Beacon's disjoint buckets. Under the semantic conventions
 * `gen_ai.usage.input_tokens` includes cache reads and writes (goose documents it); the source's
 * semantics say whether it does here. The source's own figure stays in `raw.attributes`.
 */
export function extractUsage(attrs: Attributes, semantics: UsageSemantics): Usage | undefined {
  const inputReported = tokenAttr(attrs, 'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens');
  const output = tokenAttr(attrs, 'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens');
  const cacheRead = tokenAttr(attrs, 'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens');
  const cacheWrite = tokenAttr(
    attrs,
    'gen_ai.usage.cache_creation.input_tokens',
    'gen_ai.usage.cache_write.input_tokens',
    'gen_ai.usage.input_tokens.cache_write',
    'gen_ai.usage.cache_creation_input_tokens',
  );
  const reasoning = tokenAttr(attrs, 'gen_ai.usage.reasoning.output_tokens', 'gen_ai.usage.reasoning_tokens');
  const cost = numberAttr(attrs, 'gen_ai.usage.cost');
  return disjointUsage({ input: inputReported, output, cacheRead, cacheWrite, reasoning, costUsd: cost }, semantics);
}
