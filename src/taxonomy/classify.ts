import { extname } from 'node:path';
import type { BeaconRecord, Fidelity } from '../model/record';
import { fragmentDiff, wholeContentDiff, type FileDiff } from './diff';
import type { FileChange, ToolUse } from './tool-use';
import { splitToolName } from './tool-name';

/** What a tool call is, in Beacon's action vocabulary. Shared by every agent and every path. */
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

/**
 * A tool call in Beacon's action vocabulary, from what the agent's own tool table says it does.
 * A known tool without an action of its own (`load_skill`) is a generic `tool.invoked`, observed.
 */
export function classifyToolUse(name: string, use: ToolUse, options: ClassifyOptions = {}): ToolOutcome {
  const display = splitToolName(name).original;
  switch (use.kind) {
    case 'consumed':
      return { consumed: true };
    case 'mcp':
      return {
        action: 'mcp.tool_invoked', category: 'mcp', fidelity: 'observed', message: 'MCP tool invoked',
        tool: { name: display }, mcp: { server: use.server, tool: use.tool },
      };
    case 'shell': {
      const command = use.command;
      return {
        action: 'command.executed', category: 'command', fidelity: 'observed', message: 'Shell command executed',
        tool: { name: display, ...(command !== undefined ? { command } : {}) },
        ...(command !== undefined ? { command: { command } } : {}),
      };
    }
    case 'write': {
      if (!use.path) return generic(display, 'observed');
      const diff = options.withDiff && !options.failed && use.change ? changeDiff(use.path, use.change) : undefined;
      return fileEvent('file.modified', display, use.path, use.operation, diff);
    }
    case 'tree':
      return use.path ? fileEvent('file.read', display, use.path, 'read') : generic(display, 'observed');
    case 'read':
      // A URL is never a file.path: every rule and SIEM query treats that field as a filesystem path.
      if (!use.path || /^https?:\/\//i.test(use.path)) return generic(display, 'observed');
      return fileEvent('file.read', display, use.path, 'read');
    case 'skill':
      return generic(display, 'observed');
    case 'other':
      return generic(display, use.fidelity);
  }
}

function changeDiff(path: string, change: FileChange): FileDiff | undefined {
  return 'content' in change ? wholeContentDiff(path, change.content) : fragmentDiff(path, change.before, change.after);
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

/** Puts a classification's tool, file, command and MCP fields on a record (copies: records are edited later). */
export function applyToolClassification(r: BeaconRecord, cls: ToolClassification): void {
  r.tool = { ...cls.tool };
  if (cls.file) r.file = { ...cls.file };
  if (cls.command) r.command = { ...cls.command };
  if (cls.mcp) r.mcp = { ...cls.mcp };
}
