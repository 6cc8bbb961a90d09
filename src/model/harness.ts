/**
 * Beacon's closed list of spellings that mean the goose runtime. GooseAI (gooseai, goose-ai,
 * goose.ai) is another company's inference service: those names are deliberately absent, so a model
 * provider is never recorded as this runtime.
 */
const GOOSE_SPELLINGS = new Set([
  'goose', 'goose_cli', 'goose-cli', 'goose cli', 'goosecli',
  'goose_agent', 'goose-agent', 'goose agent',
  'codename_goose', 'codename-goose', 'codename goose',
  'block_goose', 'block-goose', 'block goose',
]);

/** Lowercased and trimmed; a goose spelling becomes `goose`; anything else stays itself. */
export function normalizeHarnessName(name: string): string {
  const n = name.trim().toLowerCase();
  return GOOSE_SPELLINGS.has(n) ? 'goose' : n;
}

export function isGooseName(name: string): boolean {
  return GOOSE_SPELLINGS.has(name.trim().toLowerCase());
}

/** The harness of an agent Beacon has no source for: its `service.name`, normalized, or `otel`. */
export function resourceHarness(resource: Record<string, unknown>): string {
  const service = resource['service.name'];
  return typeof service === 'string' && service !== '' ? normalizeHarnessName(service) : 'otel';
}
