import { splitToolName } from '../taxonomy/tool-name';
import type { HarnessEvent } from './harness-event';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type ToolFields = DistributiveOmit<Extract<HarnessEvent, { type: 'command' | 'read' | 'write' | 'search' | 'list' | 'skill' }>, 'timestamp' | 'sessionId'>;

const TEXT_EDITOR_READ = new Set(['view', 'read']);
const TEXT_EDITOR_WRITE = new Set(['write', 'create', 'overwrite', 'edit', 'str_replace', 'insert', 'move', 'rename', 'delete']);

/**
 * goose tool call → harness tool event, per the stream contract's table and goose's real tool names.
 * `consumed` for the todo extension; `unknown` for anything unrecognized (MCP tools included).
 */
export function harnessToolEvent(name: string, args: unknown): ToolFields | 'consumed' | 'unknown' {
  const tn = splitToolName(name);
  if (tn.extension === 'todo') return 'consumed';
  if (tn.isMcp) return 'unknown';
  const a = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
  const s = (k: string) => (typeof a[k] === 'string' ? (a[k] as string) : undefined);
  switch (tn.base) {
    case 'read':
      return s('path') ? { type: 'read', path: s('path')!, ...lines(a) } : 'unknown';
    case 'read_image':
      return s('source') ?? s('path') ? { type: 'read', path: (s('source') ?? s('path'))! } : 'unknown';
    case 'write':
    case 'edit':
      return s('path') ? { type: 'write', path: s('path')! } : 'unknown';
    case 'text_editor': {
      const cmd = (s('command') ?? '').toLowerCase();
      const path = s('path');
      if (!path) return 'unknown';
      if (TEXT_EDITOR_READ.has(cmd)) return { type: 'read', path };
      if (TEXT_EDITOR_WRITE.has(cmd)) return { type: 'write', path };
      return 'unknown';
    }
    case 'shell':
      return s('command') !== undefined ? shellEvent(s('command')!) : 'unknown';
    case 'grep':
    case 'glob': {
      const query = s('pattern') ?? s('query') ?? s('glob');
      return query !== undefined ? { type: 'search', query, ...(s('path') ? { path: s('path') } : {}) } : 'unknown';
    }
    case 'list':
    case 'tree':
      return { type: 'list', ...(s('path') ? { path: s('path') } : {}) };
    case 'load_skill':
    case 'skill': {
      const skill = s('name') ?? s('skill');
      return skill || s('path') ? { type: 'skill', path: s('path') ?? skill!, ...(skill ? { skillName: skill } : {}) } : 'unknown';
    }
    default:
      return 'unknown';
  }
}

function lines(a: Record<string, unknown>): { startLine?: number; endLine?: number } {
  const line = typeof a.line === 'number' ? a.line : undefined;
  const limit = typeof a.limit === 'number' ? a.limit : undefined;
  if (line === undefined) return {};
  return { startLine: line, ...(limit !== undefined ? { endLine: line + limit - 1 } : {}) };
}

/**
 * A single simple shell command that is really a file operation is reported as one: `cat f` and
 * `sed -n 'a,bp' f` read, `rg`/`grep`/`find` search, `ls` lists. Pipelines and compound commands
 * stay commands.
 */
export function shellEvent(command: string): ToolFields {
  const trimmed = command.trim();
  if (/[|;&<>`$()]/.test(trimmed)) return { type: 'command', command };
  const words = trimmed.split(/\s+/);
  const [cmd, ...rest] = words;
  const operands = rest.filter((w) => !w.startsWith('-'));
  switch (cmd) {
    case 'cat':
      return operands.length === 1 ? { type: 'read', path: operands[0]! } : { type: 'command', command };
    case 'sed': {
      const m = /^-n\s+'?(\d+),(\d+)p'?\s+(\S+)$/.exec(rest.join(' '));
      return m ? { type: 'read', path: m[3]!, startLine: Number(m[1]), endLine: Number(m[2]) } : { type: 'command', command };
    }
    case 'rg':
    case 'grep':
      return operands.length >= 1 ? { type: 'search', query: unquote(operands[0]!), ...(operands[1] ? { path: operands[1] } : {}) } : { type: 'command', command };
    case 'find':
      return { type: 'search', query: trimmed, ...(operands[0] ? { path: operands[0] } : {}) };
    case 'ls':
      return { type: 'list', ...(operands[0] ? { path: operands[0] } : {}) };
    default:
      return { type: 'command', command };
  }
}

function unquote(s: string): string {
  return s.replace(/^(['"])(.*)\1$/, '$2');
}
