import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../../taxonomy/classify';
import type { ToolUse } from '../../taxonomy/tool-use';
import { asString } from '../attributes';

// Its own file, apart from the OTLP reader: the hook process classifies tools and must not load the span readers.
type Args = Record<string, unknown>;

/** Copilot CLI's built-in tools (`bash`, `view`, `create`, `edit`, `str_replace_editor`…). */
export function copilotToolUse(name: string, input: unknown): ToolUse {
  const a = typeof input === 'object' && input !== null ? (input as Args) : {};
  const path = asString(a.path) ?? asString(a.file_path);
  switch (name) {
    case 'bash':
    case 'shell':
      return { kind: 'shell', command: asString(a.command) };
    case 'view':
      return { kind: 'read', ...(path ? { path } : {}) };
    case 'create':
      return { kind: 'write', path, operation: 'create', ...(typeof a.file_text === 'string' ? { change: { content: a.file_text } } : {}) };
    case 'edit':
    case 'str_replace':
      return { kind: 'write', path, operation: 'modify', ...(typeof a.old_str === 'string' && typeof a.new_str === 'string' ? { change: { before: a.old_str, after: a.new_str } } : {}) };
    default:
      return { kind: 'other', fidelity: 'observed' };
  }
}

export function classifyCopilotTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  return classifyToolUse(name, copilotToolUse(name, input), options);
}
