import { extname } from 'node:path';
import type { BeaconRecord, Fidelity } from '../model/record';
import { fragmentDiff, wholeContentDiff, type FileDiff } from './diff';
import { splitToolName } from './tool-name';

/** What a goose tool call is, in Beacon's action vocabulary. Shared by the hook and OTLP paths. */
export interface ToolClassification {
  action: 'command.executed' | 'file.modified' | 'file.read' | 'mcp.tool_invoked' | 'tool.invoked';
  category: 'command' | 'file' | 'mcp' | 'tool';
  fidelity: Fidelity;
  message: string;
  tool: { name: string; command?: string; path?: string };
  file?: { path: string; operation: string; language?: string } & Partial<FileDiff>;
  command?: { command: string };
  mcp?: { server: string; tool: string };
}

export type ToolOutcome = ToolClassification | { consumed: true };

export interface ClassifyOptions {
  /** the call failed (PostToolUseFailure, error.type): a failed edit changed nothing, so no diff */
  failed?: boolean;
  /** build diffs for write/edit (only after the call ran: a pre-tool observation has none) */
  withDiff?: boolean;
}

const PATH_KEYS = ['file_path', 'filePath', 'path', 'Path', 'AbsolutePath', 'DirectoryPath', 'SearchPath', 'searchPath'];
const TEXT_EDITOR_READ = new Set(['view', 'read']);
const TEXT_EDITOR_CREATE = new Set(['write', 'create', 'overwrite']);
const TEXT_EDITOR_MODIFY = new Set(['edit', 'str_replace', 'insert', 'undo_edit', 'move', 'rename', 'delete']);

export function classifyGooseTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  const tn = splitToolName(name);
  const args = isObject(input) ? input : {};
  const display = tn.original;

  if (tn.isMcp) {
    return {
      action: 'mcp.tool_invoked', category: 'mcp', fidelity: 'observed', message: 'MCP tool invoked',
      tool: { name: display }, mcp: { server: tn.extensionOriginal!, tool: tn.baseOriginal },
    };
  }
  if (tn.extension === 'todo') return { consumed: true };

  const path = firstString(args, PATH_KEYS);
  switch (tn.base) {
    case 'shell': {
      const command = str(args.command);
      return {
        action: 'command.executed', category: 'command', fidelity: 'observed', message: 'Shell command executed',
        tool: { name: display, ...(command !== undefined ? { command } : {}) },
        ...(command !== undefined ? { command: { command } } : {}),
      };
    }
    case 'write':
    case 'edit': {
      if (!path) return generic(display, 'observed');
      const create = tn.base === 'write';
      let diff: FileDiff | undefined;
      if (options.withDiff && !options.failed) {
        if (create && typeof args.content === 'string') diff = wholeContentDiff(path, args.content);
        else if (!create && typeof args.before === 'string' && typeof args.after === 'string') diff = fragmentDiff(path, args.before, args.after);
      }
      return fileEvent('file.modified', display, path, create ? 'create' : 'modify', diff);
    }
    case 'tree':
      return path ? fileEvent('file.read', display, path, 'read') : generic(display, 'observed');
    case 'read_image': {
      const source = str(args.source) ?? path;
      // A URL is never a file.path: every rule and SIEM query treats that field as a filesystem path.
      if (!source || /^https?:\/\//i.test(source)) return generic(display, 'observed');
      return fileEvent('file.read', display, source, 'read');
    }
    case 'text_editor': {
      const cmd = (str(args.command) ?? '').toLowerCase();
      if (!path) return generic(display, 'inferred');
      if (TEXT_EDITOR_READ.has(cmd)) return fileEvent('file.read', display, path, 'read');
      if (TEXT_EDITOR_CREATE.has(cmd) || TEXT_EDITOR_MODIFY.has(cmd)) {
        let diff: FileDiff | undefined;
        if (options.withDiff && !options.failed) {
          if (TEXT_EDITOR_CREATE.has(cmd) && typeof args.file_text === 'string') diff = wholeContentDiff(path, args.file_text);
          else if (cmd === 'str_replace' && typeof args.old_str === 'string' && typeof args.new_str === 'string') diff = fragmentDiff(path, args.old_str, args.new_str);
        }
        return fileEvent('file.modified', display, path, TEXT_EDITOR_CREATE.has(cmd) ? 'create' : 'modify', diff);
      }
      return generic(display, 'inferred');
    }
    default:
      return generic(display, 'inferred');
  }
}

function fileEvent(action: 'file.modified' | 'file.read', tool: string, path: string, operation: string, diff?: FileDiff): ToolClassification {
  const ext = extname(path).slice(1).toLowerCase();
  return {
    action, category: 'file', fidelity: 'observed',
    message: action === 'file.read' ? 'File read observed' : diff ? 'File edit observed' : 'File modification observed',
    tool: { name: tool, path },
    file: { path, operation, ...(ext ? { language: ext } : {}), ...(diff ?? {}) },
  };
}

function generic(tool: string, fidelity: Fidelity): ToolClassification {
  return { action: 'tool.invoked', category: 'tool', fidelity, message: 'Tool invocation observed', tool: { name: tool } };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function firstString(o: Record<string, unknown>, keys: string[]): string | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/** Puts a classification's tool, file, command and MCP fields on a record (copies: records are edited later). */
export function applyToolClassification(r: BeaconRecord, cls: ToolClassification): void {
  r.tool = { ...cls.tool };
  if (cls.file) r.file = { ...cls.file };
  if (cls.command) r.command = { ...cls.command };
  if (cls.mcp) r.mcp = { ...cls.mcp };
}
