import type { HarnessEvent } from '../model/harness-event';
import type { ToolUse } from '../taxonomy/tool-use';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type ToolFields = DistributiveOmit<Extract<HarnessEvent, { type: 'command' | 'read' | 'write' | 'search' | 'list' | 'skill' }>, 'timestamp' | 'sessionId'>;

/**
 * What a tool call does (an agent's own tool table read into the taxonomy's ToolUse) → the harness
 * tool event: every agent's stream maps its tools through here, so a shell call is a `command` (or
 * the file operation it really is) whoever made it. `consumed` for internal session state (goose's
 * todo extension); `unknown` for anything else (MCP tools included).
 */
export function harnessToolFields(use: ToolUse): ToolFields | 'consumed' | 'unknown' {
  switch (use.kind) {
    case 'consumed':
      return 'consumed';
    case 'shell':
      return use.command !== undefined ? shellEvent(use.command) : 'unknown';
    case 'read':
    case 'write':
      return use.path ? { type: use.kind, path: use.path } : 'unknown';
    case 'tree':
      return { type: 'list', ...(use.path ? { path: use.path } : {}) };
    case 'skill':
      return use.name ? { type: 'skill', path: use.name, skillName: use.name } : 'unknown';
    case 'mcp':
    case 'other':
      return 'unknown';
  }
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
