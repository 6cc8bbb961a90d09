import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../../taxonomy/classify';
import type { ToolUse } from '../../taxonomy/tool-use';

type Args = Record<string, unknown>;

/** Codex's shell tools take the command as a string (`exec_command`'s `cmd`) or an argv array (`shell`'s `command`). */
function commandLine(a: Args): string | undefined {
  for (const v of [a.cmd, a.command]) {
    if (typeof v === 'string') return v;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
      // `["bash", "-lc", "<script>"]` is how Codex wraps a script: the script is the command line.
      return v.length === 3 && /^(ba|z)?sh$/.test(v[0]) && v[1] === '-lc' ? v[2] : v.join(' ');
    }
  }
  return undefined;
}

/** The first file an `apply_patch` envelope names (`*** Update File: path`). */
function patchPath(a: Args): { path?: string; operation: 'create' | 'modify' } {
  const patch = typeof a.input === 'string' ? a.input : typeof a.patch === 'string' ? a.patch : '';
  const m = /^\*\*\* (Add|Update|Delete) File: (.+)$/m.exec(patch);
  return { ...(m ? { path: m[2]!.trim() } : {}), operation: m?.[1] === 'Add' ? 'create' : 'modify' };
}

export function codexToolUse(name: string, input: unknown, mcpServer?: string): ToolUse {
  if (mcpServer) return { kind: 'mcp', server: mcpServer, tool: name };
  const args = typeof input === 'object' && input !== null ? (input as Args) : {};
  switch (name) {
    case 'exec_command':
    case 'shell':
    case 'local_shell':
    case 'container.exec':
      return { kind: 'shell', command: commandLine(args) };
    case 'apply_patch':
      return { kind: 'write', ...patchPath(args) };
    case 'view_image':
      return { kind: 'read', ...(typeof args.path === 'string' ? { path: args.path } : {}) };
    default:
      return { kind: 'other', fidelity: 'observed' };
  }
}

export function classifyCodexTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  return classifyToolUse(name, codexToolUse(name, input), options);
}
