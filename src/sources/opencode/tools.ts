import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../../taxonomy/classify';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';

// Its own file, apart from the OTLP reader: the hook process classifies tools and must not load the span readers.
type Args = Record<string, unknown>;

/** opencode's built-in tools (`bash`, `edit`, `write`, `read`, `glob`, `grep`, `list`). */
export function opencodeToolUse(name: string, input: unknown): ToolUse {
  const a = typeof input === 'object' && input !== null ? (input as Args) : {};
  const path = asString(a.filePath) ?? asString(a.path);
  switch (name) {
    case 'bash':
      return { kind: 'shell', command: asString(a.command) };
    case 'edit':
      return { kind: 'write', path, operation: 'modify', ...(typeof a.oldString === 'string' && typeof a.newString === 'string' ? { change: { before: a.oldString, after: a.newString } } : {}) };
    case 'write':
      return { kind: 'write', path, operation: 'create', ...(typeof a.content === 'string' ? { change: { content: a.content } } : {}) };
    case 'read':
      return { kind: 'read', ...(path ? { path } : {}) };
    case 'glob':
    case 'grep':
    case 'list':
      return { kind: 'tree', ...(path ? { path } : {}) };
    default:
      return { kind: 'other', fidelity: 'observed' };
  }
}

export function classifyOpencodeTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  return classifyToolUse(name, opencodeToolUse(name, input), options);
}
