import { closest } from './suggest';
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

/**
 * Other names people call the agents Beacon records, mapped to Beacon's harness names (the ones its
 * sources record). For what a user types (`--harness claude`), never for what an agent sends.
 */
const AGENT_ALIASES: Readonly<Record<string, string>> = {
  claude: 'claude-code', claude_code: 'claude-code', 'claude code': 'claude-code',
  'codex-cli': 'codex', 'openai-codex': 'codex',
  gemini: 'gemini-cli', gemini_cli: 'gemini-cli',
  qwen: 'qwen-code', qwen_code: 'qwen-code',
  copilot: 'copilot-cli', 'github-copilot': 'copilot-cli', copilot_cli: 'copilot-cli',
  'opencode-ai': 'opencode',
  'pi-coding-agent': 'pi', 'pi-agent': 'pi',
};

/** A harness name as a user typed it, in Beacon's spelling: goose's spellings and the agents' aliases resolved. */
export function harnessOption(name: string): string {
  const n = normalizeHarnessName(name);
  return AGENT_ALIASES[n] ?? n;
}

/** The harness names Beacon's own sources record. */
const KNOWN_HARNESSES: readonly string[] = [...new Set(['goose', 'cline', ...Object.values(AGENT_ALIASES)])];

/**
 * For a filter that matched nothing: when the name typed is none of Beacon's agents, what it may have
 * meant (`--harness claud`: "claude-code"). Another name is not refused (an unknown agent's GenAI
 * spans are recorded under its own `service.name`), only hinted at: '' when nothing is close.
 */
export function unknownHarnessHint(typed: string): string {
  const name = harnessOption(typed);
  if (KNOWN_HARNESSES.includes(name)) return '';
  // the aliases are candidates too (`copilt` is one edit from `copilot`), suggested by their agent's name
  const near = closest(name, [...KNOWN_HARNESSES, ...Object.keys(AGENT_ALIASES)]);
  return near === undefined ? '' : `; no agent Beacon knows is named "${name}" (did you mean "${AGENT_ALIASES[near] ?? near}"?)`;
}

export function isGooseName(name: string): boolean {
  return GOOSE_SPELLINGS.has(name.trim().toLowerCase());
}

/** The harness of an agent Beacon has no source for: its `service.name`, normalized, or `otel`. */
export function resourceHarness(resource: Record<string, unknown>): string {
  const service = resource['service.name'];
  return typeof service === 'string' && service !== '' ? normalizeHarnessName(service) : 'otel';
}
