import type { UsageSemantics } from '../../model/usage';
import type { ClassifyOptions, ToolOutcome } from '../../taxonomy/classify';

/**
 * What the GenAI span reader needs to know of the agent that sent the spans: the semantic
 * conventions fix the attribute names, not what the numbers cover or what a tool name means.
 */
export interface SpanProfile {
  /** the harness name when the span names none itself (`beacon.harness.name`); undefined: the resource's service.name */
  harness?: string;
  usage: UsageSemantics;
  classifyTool(name: string, input: unknown, options?: ClassifyOptions): ToolOutcome;
}
