import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../../taxonomy/classify';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';

type Args = Record<string, unknown>;

/** Claude Code's built-in tools (its tool names are stable API: `Bash`, `Edit`, `Write`, `Read`…). */
const TOOLS: Readonly<Record<string, (a: Args) => ToolUse>> = {
  Bash: (a) => ({ kind: 'shell', command: asString(a.command) ?? asString(a.full_command) }),
  Edit: (a) => ({ kind: 'write', path: asString(a.file_path), operation: 'modify', ...(typeof a.old_string === 'string' && typeof a.new_string === 'string' ? { change: { before: a.old_string, after: a.new_string } } : {}) }),
  MultiEdit: (a) => ({ kind: 'write', path: asString(a.file_path), operation: 'modify' }),
  Write: (a) => ({ kind: 'write', path: asString(a.file_path), operation: 'create', ...(typeof a.content === 'string' ? { change: { content: a.content } } : {}) }),
  NotebookEdit: (a) => ({ kind: 'write', path: asString(a.notebook_path), operation: 'modify' }),
  Read: (a) => ({ kind: 'read', path: asString(a.file_path) }),
  Glob: (a) => ({ kind: 'tree', path: asString(a.path) }),
  Grep: (a) => ({ kind: 'tree', path: asString(a.path) }),
  LS: (a) => ({ kind: 'tree', path: asString(a.path) }),
};

export function claudeToolUse(name: string, input: unknown): ToolUse {
  const args = typeof input === 'object' && input !== null ? (input as Args) : {};
  // MCP tools are named mcp__<server>__<tool>.
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  if (mcp) return { kind: 'mcp', server: mcp[1]!, tool: mcp[2]! };
  // own keys only: a tool named `__proto__` or `toString` comes from the wire and is just another tool
  return Object.hasOwn(TOOLS, name) ? TOOLS[name]!(args) : { kind: 'other', fidelity: 'observed' };
}

export function classifyClaudeTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  return classifyToolUse(name, claudeToolUse(name, input), options);
}
