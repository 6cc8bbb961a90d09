import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../../taxonomy/classify';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';

// Its own file, apart from the readers: the hook process classifies tools and loads nothing else.
type Args = Record<string, unknown>;
const obj = (v: unknown): Args => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Args) : {});

/**
 * Pi 0.73's built-in tools (docs/agents/pi-facts.md §3): `bash {command}`, `write {path, content}`,
 * `edit {path, edits: [{oldText, newText}]}`, `read {path}`, and `grep`/`find`/`ls` (off by default).
 * An edit of several fragments has no one before/after: it is recorded as a modification without a diff.
 */
export function piToolUse(name: string, input: unknown): ToolUse {
  const a = obj(input);
  const path = asString(a.path);
  switch (name) {
    case 'bash':
      return { kind: 'shell', command: asString(a.command) };
    case 'write':
      return { kind: 'write', path, operation: 'create', ...(typeof a.content === 'string' ? { change: { content: a.content } } : {}) };
    case 'edit': {
      const edits = Array.isArray(a.edits) ? a.edits.map(obj) : [{ oldText: a.oldText, newText: a.newText }];
      const one = edits.length === 1 ? edits[0]! : undefined;
      const change = one && typeof one.oldText === 'string' && typeof one.newText === 'string' ? { before: one.oldText, after: one.newText } : undefined;
      return { kind: 'write', path, operation: 'modify', ...(change ? { change } : {}) };
    }
    case 'read':
      return { kind: 'read', ...(path ? { path } : {}) };
    case 'grep':
    case 'find':
    case 'ls':
      return { kind: 'tree', ...(path ? { path } : {}) };
    default:
      return { kind: 'other', fidelity: 'observed' };
  }
}

export function classifyPiTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  return classifyToolUse(name, piToolUse(name, input), options);
}

/** Pi's bash writes a failed command's exit code only as the result text's last line: `Command exited with code 2`. */
export function piExitCode(text: string | undefined): number | undefined {
  const m = text ? /Command exited with code (-?\d+)\s*$/.exec(text) : null;
  return m ? Number(m[1]) : undefined;
}
