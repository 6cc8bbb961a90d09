import { goose } from './goose';
import { otelGenAi } from './otel-genai';
import type { Source } from './source';

/** Every agent Beacon reads, first match wins; plain GenAI semantic conventions last, for the rest. */
export const SOURCES: readonly Source[] = [goose, otelGenAi];
