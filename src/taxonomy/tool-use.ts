import type { Fidelity } from '../model/record';

/**
 * What a tool call does, whichever agent made it: each source reads its own tool table into this
 * (goose: `sources/goose/tools.ts`), and the taxonomy (`classifyToolUse`) turns it into Beacon's
 * actions, so every agent's shell call is the same `command.executed`.
 */
export type ToolUse =
  /** the todo extension: internal session state, no event */
  | { kind: 'consumed' }
  | { kind: 'mcp'; server: string; tool: string }
  | { kind: 'shell'; command?: string }
  | { kind: 'write'; path?: string; operation: 'create' | 'modify'; change?: FileChange }
  /** `read_image` (path = its source, which may be a URL) and the old text_editor's view */
  | { kind: 'read'; path?: string }
  | { kind: 'tree'; path?: string }
  | { kind: 'skill'; name?: string }
  /** a tool the table does not know (or a text_editor command it does not), classified generically */
  | { kind: 'other'; fidelity: Fidelity };

/** What a write carries to build its diff from: a whole new content, or the replaced fragment. */
export type FileChange = { content: string } | { before: string; after: string };

