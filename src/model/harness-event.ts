import type { Usage } from './record';

/**
 * The normalized harness event contract (one JSON object per line): `timestamp`, optional
 * `sessionId`, `type`, then the type's fields in camelCase.
 */
export type HarnessEvent =
  | (Base & { type: 'agent'; message: string })
  | (Base & { type: 'reasoning'; message: string })
  | (Base & { type: 'command'; command: string; workingDirectory?: string; exitCode?: number; isSuccess?: boolean })
  | (Base & { type: 'read' | 'write'; path: string; startLine?: number; endLine?: number; isSuccess?: boolean })
  | (Base & { type: 'search'; query: string; path?: string; isSuccess?: boolean })
  | (Base & { type: 'list'; path?: string; isSuccess?: boolean })
  | (Base & { type: 'skill'; path: string; skillName?: string; isSuccess?: boolean })
  | (Base & { type: 'error'; message: string; code?: string })
  | (Base & { type: 'unknown'; raw: unknown });

interface Base {
  timestamp: string;
  sessionId?: string;
}

/** What the stream said beyond the contract, kept for the Beacon record of the same event. */
export interface StreamDetail {
  messageId?: string;
  model?: string;
  provider?: string;
  tool?: { callId: string; name: string; arguments: unknown; answered: boolean; failed: boolean; exitCode?: number };
  /** token usage the stream reported, already in Beacon's disjoint buckets (model/usage.ts) */
  usageReport?: StreamUsageReport;
  /** goose asked the user to confirm a tool call, or the user answered (goose's Permission, snake_case) */
  approval?: { callId: string; toolName?: string; arguments?: unknown; prompt?: string; decision?: string };
  /** when goose said it (for events that print nothing) */
  timestamp?: string;
  /** a harness event with no Beacon record (an MCP notification's known shapes) */
  unrecorded?: boolean;
}

/**
 * Usage from an agent's stream: a whole run's totals (`run`: Codex's turn, Gemini's and Claude's
 * result), one model call's (`call`: opencode's step_finish) or the session's so far (`session`:
 * goose's complete, shown beside the per-call sums, never added to them). Recorded as
 * `usage.reported`, which token-usage counts (run and call) only for a session none of whose model
 * calls arrived one by one.
 */
export interface StreamUsageReport {
  scope: 'run' | 'call' | 'session';
  usage: Usage;
  /** the stream's own numbers, kept in the record's raw (what Beacon's buckets were computed from) */
  reported: Record<string, unknown>;
  /** the stream's id of the model call (scope call) */
  callId?: string;
}

export interface StreamEvent {
  /** null: nothing to print (goose's `complete` supplies usage but is no harness event) */
  harness: HarnessEvent | null;
  detail: StreamDetail;
}
