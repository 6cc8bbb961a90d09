import { HOOK_ADAPTERS } from './hook-registry';
import { SOURCES } from './registry';
import { SESSION_STORES } from './store-registry';
import { STREAM_ADAPTERS } from './stream-registry';

// Apart from registry.ts, which the receiver loads through dispatch.ts: the pickers' list loads
// every path's registry, and an OTLP export needs none of them.
/**
 * The harness names of the agents Beacon has a reader for, by any path (filters and pickers offer
 * these): an agent with no OTLP (Cline, Pi) is one of them too.
 */
export const AGENT_HARNESSES: readonly string[] = [...new Set([
  ...SOURCES.filter((s) => s.harness !== 'otel').map((s) => s.harness),
  ...HOOK_ADAPTERS.map((a) => a.platform),
  ...STREAM_ADAPTERS.map((a) => a.platform),
  ...SESSION_STORES.map((s) => s.harness),
])];
