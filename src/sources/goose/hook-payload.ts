import { payloadObject } from '../hook-facts';

/** goose's hook payload (HookContext), as goose 1.47+ sends it on stdin. Unset fields are omitted. */
export interface GoosePayload {
  event?: string;
  session_id?: string;
  tool_call_id?: string;
  tool_name?: string;
  tool_input?: unknown;
  message?: string;
  last_assistant_message?: string;
  working_dir?: string;
  /** PreToolUseResult: the chain's verdict, who denied and why (goose ≥ 1.50 adds `cause`) */
  decision?: string;
  blocked_by?: string;
  reason?: string;
  cause?: string;
  /** PreToolUseResult (goose ≥ 1.50): false when no PreToolUse hook completed — an allow then means unchecked */
  policy_evaluated?: boolean;
}

export const SUBCOMMANDS = ['session-start', 'prompt-submit', 'pre-tool', 'pre-tool-result', 'post-tool', 'stop', 'session-end'] as const;
export type Subcommand = (typeof SUBCOMMANDS)[number];

/** goose judges the stdout of PreToolUse and Stop: only `allow` and `block` are verdicts. */
export const BLOCKING: ReadonlySet<Subcommand> = new Set(['pre-tool', 'stop']);

export function parsePayload(text: string): GoosePayload {
  const o = payloadObject(text);
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
  // matcher_context is deliberately ignored: on UserPromptSubmit it is the prompt text again.
  return {
    event: str('event'),
    session_id: str('session_id'),
    tool_call_id: str('tool_call_id'),
    tool_name: str('tool_name'),
    tool_input: o.tool_input,
    message: str('message'),
    last_assistant_message: str('last_assistant_message'),
    working_dir: str('working_dir'),
    decision: str('decision'),
    blocked_by: str('blocked_by'),
    reason: str('reason'),
    cause: str('cause'),
    ...(typeof o.policy_evaluated === 'boolean' ? { policy_evaluated: o.policy_evaluated } : {}),
  };
}
