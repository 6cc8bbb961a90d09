import { SEMCONV_USAGE } from '../../model/usage';
import type { Source } from '../source';
import { extractGenAiSpans } from './spans';
import { classifySemconvTool } from './tools';

/**
 * Any agent that speaks the OpenTelemetry GenAI semantic conventions and has no source of its own:
 * its inference and `execute_tool` spans, harness named by its `service.name`. Its log records and
 * metrics are counted only.
 */
export const otelGenAi: Source = {
  harness: 'otel',
  matches: () => true,
  spans: (spans) => extractGenAiSpans(spans, { usage: SEMCONV_USAGE, classifyTool: classifySemconvTool }),
};
