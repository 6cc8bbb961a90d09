import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../../taxonomy/classify';
import type { ToolUse } from '../../taxonomy/tool-use';
import { splitToolName } from '../../taxonomy/tool-name';
import { asString } from '../attributes';

type Args = Record<string, unknown>;

const PATH_KEYS = ['file_path', 'filePath', 'path', 'Path', 'AbsolutePath', 'DirectoryPath', 'SearchPath', 'searchPath'];
const TEXT_EDITOR_READ = new Set(['view', 'read']);
const TEXT_EDITOR_CREATE = new Set(['write', 'create', 'overwrite']);
const TEXT_EDITOR_MODIFY = new Set(['edit', 'str_replace', 'insert', 'undo_edit', 'move', 'rename', 'delete']);

/**
 * goose's built-in tools by base name, from goose's code (the developer extension's
 * `shell`/`write`/`edit`/`tree`/`read_image`, the skills extension's `load_skill`, and the old
 * goose-mcp developer's `text_editor`). Names goose never registers (`read`, `grep`, `glob`,
 * `list`, `skill`, which older contracts listed) are not here: goose's code wins.
 */
const GOOSE_TOOLS: Readonly<Record<string, (a: Args) => ToolUse>> = {
  shell: (a) => ({ kind: 'shell', command: asString(a.command) }),
  write: (a) => ({ kind: 'write', path: filePath(a), operation: 'create', ...(typeof a.content === 'string' ? { change: { content: a.content } } : {}) }),
  edit: (a) => ({
    kind: 'write', path: filePath(a), operation: 'modify',
    ...(typeof a.before === 'string' && typeof a.after === 'string' ? { change: { before: a.before, after: a.after } } : {}),
  }),
  tree: (a) => ({ kind: 'tree', path: filePath(a) }),
  read_image: (a) => ({ kind: 'read', path: asString(a.source) ?? filePath(a) }),
  load_skill: (a) => ({ kind: 'skill', name: asString(a.name) }),
  text_editor: textEditor,
};

export function gooseToolUse(name: string, input: unknown): ToolUse {
  const tn = splitToolName(name);
  if (tn.isMcp) return { kind: 'mcp', server: tn.extensionOriginal!, tool: tn.baseOriginal };
  if (tn.extension === 'todo') return { kind: 'consumed' };
  const entry = Object.hasOwn(GOOSE_TOOLS, tn.base) ? GOOSE_TOOLS[tn.base] : undefined;
  return entry ? entry(isObject(input) ? input : {}) : { kind: 'other', fidelity: 'inferred' };
}

/** The old text_editor, by its command; a call without a path or with an unknown command is generic. */
function textEditor(a: Args): ToolUse {
  const cmd = (asString(a.command) ?? '').toLowerCase();
  const path = filePath(a);
  if (!path) return { kind: 'other', fidelity: 'inferred' };
  if (TEXT_EDITOR_READ.has(cmd)) return { kind: 'read', path };
  if (TEXT_EDITOR_CREATE.has(cmd)) return { kind: 'write', path, operation: 'create', ...(typeof a.file_text === 'string' ? { change: { content: a.file_text } } : {}) };
  if (TEXT_EDITOR_MODIFY.has(cmd)) {
    const fragment = cmd === 'str_replace' && typeof a.old_str === 'string' && typeof a.new_str === 'string';
    return { kind: 'write', path, operation: 'modify', ...(fragment ? { change: { before: a.old_str as string, after: a.new_str as string } } : {}) };
  }
  return { kind: 'other', fidelity: 'inferred' };
}

function filePath(a: Args): string | undefined {
  for (const k of PATH_KEYS) {
    const v = a[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

function isObject(v: unknown): v is Args {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A goose tool call in Beacon's action vocabulary: goose's table read by the cross-agent classifier. */
export function classifyGooseTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  return classifyToolUse(name, gooseToolUse(name, input), options);
}
