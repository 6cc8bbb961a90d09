import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../../taxonomy/classify';
import type { ToolUse } from '../../taxonomy/tool-use';

/**
 * Tool names of agents Beacon has no source for. The semantic conventions name no tools, so only
 * the shell is recognised (by the names agents commonly give it), with its command line; anything
 * else is a generic tool call.
 */
const SHELL_NAMES = new Set(['bash', 'shell', 'sh', 'run_shell_command', 'exec_command', 'terminal']);

export function semconvToolUse(name: string, input: unknown): ToolUse {
  if (!SHELL_NAMES.has(name.trim().toLowerCase())) return { kind: 'other', fidelity: 'observed' };
  const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const command = [args.command, args.cmd].find((v): v is string => typeof v === 'string');
  return { kind: 'shell', ...(command !== undefined ? { command } : {}) };
}

export function classifySemconvTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  return classifyToolUse(name, semconvToolUse(name, input), options);
}
