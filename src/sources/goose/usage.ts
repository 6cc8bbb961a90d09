import { SEMCONV_USAGE, type UsageSemantics } from '../../model/usage';

/**
 * goose's token counts follow the GenAI conventions on every path (spans, stream-json `complete`):
 * `input_tokens` includes cache reads and writes (its own doc comment), output includes reasoning.
 */
export const GOOSE_USAGE: UsageSemantics = SEMCONV_USAGE;
