import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../taxonomy/classify';
import type { ToolUse } from '../taxonomy/tool-use';
import { asString } from './attributes';

type Args = Record<string, unknown>;

/**
 * The built-in tools of Gemini CLI, which Qwen Code forked with the same names and arguments
 * (`run_shell_command`, `replace`, `write_file`, `read_file`…). Shared by both sources like the log
 * reader. An MCP tool is named by its server in the record (`mcp_server_name`), not by its name.
 */
const TOOLS: Readonly<Record<string, (a: Args) => ToolUse>> = {
  run_shell_command: (a) => ({ kind: 'shell', command: asString(a.command) }),
  replace: (a) => ({ kind: 'write', path: asString(a.file_path), operation: 'modify', ...(typeof a.old_string === 'string' && typeof a.new_string === 'string' ? { change: { before: a.old_string, after: a.new_string } } : {}) }),
  edit: (a) => ({ kind: 'write', path: asString(a.file_path), operation: 'modify', ...(typeof a.old_string === 'string' && typeof a.new_string === 'string' ? { change: { before: a.old_string, after: a.new_string } } : {}) }),
  write_file: (a) => ({ kind: 'write', path: asString(a.file_path), operation: 'create', ...(typeof a.content === 'string' ? { change: { content: a.content } } : {}) }),
  read_file: (a) => ({ kind: 'read', path: asString(a.absolute_path) ?? asString(a.file_path) }),
  read_many_files: () => ({ kind: 'read' }),
  list_directory: (a) => ({ kind: 'tree', path: asString(a.path) ?? asString(a.dir_path) }),
  glob: (a) => ({ kind: 'tree', path: asString(a.path) ?? asString(a.dir_path) }),
  search_file_content: (a) => ({ kind: 'tree', path: asString(a.path) ?? asString(a.dir_path) }),
  grep_search: (a) => ({ kind: 'tree', path: asString(a.path) ?? asString(a.dir_path) }),
};

export function geminiStyleToolUse(name: string, input: unknown): ToolUse {
  const args = typeof input === 'object' && input !== null ? (input as Args) : {};
  // own keys only: a tool named `__proto__` or `toString` comes from the wire and is just another tool
  return Object.hasOwn(TOOLS, name) ? TOOLS[name]!(args) : { kind: 'other', fidelity: 'observed' };
}

export function classifyGeminiStyleTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  return classifyToolUse(name, geminiStyleToolUse(name, input), options);
}
