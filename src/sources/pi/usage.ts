import type { Agent } from '../agent-events';
import type { TokenUsage, UsageSemantics } from '../../model/usage';
import { classifyPiTool } from './tools';

/**
 * pi-ai normalises every provider to disjoint numbers (docs/agents/pi-facts.md §4): `input` without
 * either cache bucket, `output` the wire's completion tokens with any reasoning inside (no count of its own).
 */
export const PI_USAGE: UsageSemantics = Object.freeze({ inputIncludesCache: false, outputIncludesReasoning: true });

export const PI_AGENT: Agent = { harness: 'pi', usage: PI_USAGE, classifyTool: classifyPiTool };

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);

/** An assistant message's `usage {input, output, cacheRead, cacheWrite, cost{total}}` in Beacon's TokenUsage (before disjointUsage). */
export function piTokenUsage(usage: unknown): TokenUsage {
  const u = typeof usage === 'object' && usage !== null ? (usage as Record<string, unknown>) : {};
  const cost = typeof u.cost === 'object' && u.cost !== null ? n((u.cost as Record<string, unknown>).total) : undefined;
  return { input: n(u.input), output: n(u.output), cacheRead: n(u.cacheRead), cacheWrite: n(u.cacheWrite), ...(cost ? { costUsd: cost } : {}) };
}
