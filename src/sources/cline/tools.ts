import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../../taxonomy/classify';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';

// Its own file, apart from the store and stream readers: the hook process classifies tools and loads nothing else.
type Args = Record<string, unknown>;

/** A `run_commands` call's command line: its list of commands, one per line (Cline runs them concurrently). */
export function clineCommandLine(input: unknown): string | undefined {
  const commands = (input as Args | null)?.commands;
  if (typeof commands === 'string') return commands;
  if (!Array.isArray(commands)) return undefined;
  const list = commands.filter((c): c is string => typeof c === 'string');
  return list.length > 0 ? list.join('\n') : undefined;
}

/**
 * Cline's built-in tools (3.0.65, docs/agents/cline-facts.md): `editor` {path, new_text, old_text?}
 * creates a missing file (no old_text) or replaces old_text; `run_commands` {commands: string[]};
 * `read_files` {files: [{path}]}. `apply_patch` (offered to `gpt-*` model ids) is left generic.
 */
export function clineToolUse(name: string, input: unknown): ToolUse {
  const a = typeof input === 'object' && input !== null ? (input as Args) : {};
  switch (name) {
    case 'run_commands':
      return { kind: 'shell', command: clineCommandLine(a) };
    case 'editor': {
      const path = asString(a.path);
      const after = typeof a.new_text === 'string' ? a.new_text : undefined;
      if (typeof a.old_text === 'string' && after !== undefined) return { kind: 'write', path, operation: 'modify', change: { before: a.old_text, after } };
      if (a.insert_line !== undefined && a.insert_line !== null) return { kind: 'write', path, operation: 'modify' };
      return { kind: 'write', path, operation: 'create', ...(after !== undefined ? { change: { content: after } } : {}) };
    }
    case 'read_files': {
      const first = Array.isArray(a.files) ? (a.files[0] as Args | undefined) : undefined;
      const path = asString(first?.path);
      return { kind: 'read', ...(path ? { path } : {}) };
    }
    default:
      return { kind: 'other', fidelity: 'observed' };
  }
}

export function classifyClineTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  return classifyToolUse(name, clineToolUse(name, input), options);
}

/**
 * A tool result's outcome: `run_commands` gives a list `[{query, result, error?, success}]`, a
 * failing command `success: false, error: "Command exited with code 2"`; other tools one such object.
 */
export function clineOutcome(output: unknown): { failed: boolean; exitCode?: number } {
  const items = (Array.isArray(output) ? output : [output]).filter((o): o is Args => typeof o === 'object' && o !== null);
  const failed = items.some((o) => o.success === false);
  for (const o of items) {
    const m = /exited with code (-?\d+)/.exec(asString(o.error) ?? asString(o.result) ?? '');
    if (m) return { failed, exitCode: Number(m[1]) };
  }
  return { failed };
}
