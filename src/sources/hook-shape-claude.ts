import type { HookAdapter, HookDenial, HookEventContext, HookReading } from './hook-adapter';
import { hookFactEvents, payloadObject, type HookAgent, type HookFacts, type HookPhase } from './hook-facts';

/**
 * The hook payload Claude Code defined and most agents copied (Codex, Gemini CLI, Qwen Code, Copilot
 * CLI's PascalCase dialect): one JSON object on stdin with `session_id`, `cwd`, `hook_event_name`,
 * and on tool events `tool_name`, `tool_input`, `tool_response`. Each agent's module says only where
 * it differs: its event names, where its call id and exit code are, how its tools are named.
 */
export interface ClaudeShapeSpec {
  agent: HookAgent;
  /** the agent's event names (as its configuration spells them) → where in the turn they sit */
  phases: Readonly<Record<string, HookPhase>>;
  /** post-tool events that mean the call failed (Claude's PostToolUseFailure) */
  failureEvents?: ReadonlySet<string>;
  /** the prompt's field on the prompt event (default `prompt`) */
  promptField?: string;
  /** the prompt id's field on the prompt and stop events (the turn's prompt), where the agent's OTLP records carry the same id (default: none) */
  promptIdField?: string;
  /** the final answer's field on the stop event (default `last_assistant_message`) */
  responseField?: string;
  /** the model's call id, where this agent puts it (default: none) */
  callId?(o: Payload): string | undefined;
  /** the tool as the agent's tool table names it, where the hook renames it (Codex's `Bash`) */
  tool?(name: string, input: unknown): { name: string; input: unknown };
  /** a post-tool payload's outcome beyond its event: the exit code in the result text, an error */
  outcome?(o: Payload, tool: { name: string; input: unknown }, failureEvent: boolean): { failed?: boolean; exitCode?: number };
}

export type Payload = Record<string, unknown>;

/** Claude Code's event names and where each sits in a turn: Qwen Code and Copilot CLI's PascalCase dialect use them as they are, Codex without PostToolUseFailure. */
export const CLAUDE_PHASES: Readonly<Record<string, HookPhase>> = {
  SessionStart: 'session-start',
  UserPromptSubmit: 'prompt',
  PreToolUse: 'pre-tool',
  PostToolUse: 'post-tool',
  PostToolUseFailure: 'post-tool',
  Stop: 'stop',
  SessionEnd: 'session-end',
};

export const str = (o: Payload, k: string): string | undefined => (typeof o[k] === 'string' ? (o[k] as string) : undefined);
const num = (o: Payload, k: string): number | undefined => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : undefined);

/** The exit code a line of the agent's result text reports (`Exit Code: 2`), the last such line: the agent writes it after the output. */
export function exitCodeIn(text: unknown, line: RegExp): number | undefined {
  if (typeof text !== 'string') return undefined;
  let code: number | undefined;
  for (const m of text.matchAll(new RegExp(line.source, 'gm'))) code = Number(m[1]);
  return code !== undefined && Number.isSafeInteger(code) ? code : undefined;
}

/** A Claude-shaped payload → the facts it states. */
function claudeShapeFacts(spec: ClaudeShapeSpec, event: string, o: Payload): HookFacts {
  const phase = spec.phases[event]!;
  const facts: HookFacts = { event, phase, sessionId: str(o, 'session_id'), cwd: str(o, 'cwd') };
  if (phase === 'prompt') facts.prompt = str(o, spec.promptField ?? 'prompt');
  if (phase === 'stop') facts.response = str(o, spec.responseField ?? 'last_assistant_message');
  // the prompt's id, and on the stop event its turn's: the hook's and the OTLP export's prompt (prompt-join.ts) and turn end (turn-join.ts) are one
  if (phase === 'prompt' || phase === 'stop') {
    const promptId = spec.promptIdField ? str(o, spec.promptIdField) : undefined;
    if (promptId) facts.promptId = promptId;
  }
  if (phase === 'pre-tool' || phase === 'post-tool') {
    const raw = { name: str(o, 'tool_name') ?? '', input: o.tool_input };
    const tool = spec.tool ? spec.tool(raw.name, raw.input) : raw;
    const callId = spec.callId?.(o);
    facts.tool = { ...tool, ...(callId ? { callId } : {}) };
    if (phase === 'post-tool') {
      const failureEvent = spec.failureEvents?.has(event) ?? false;
      const outcome = spec.outcome?.(o, tool, failureEvent) ?? {};
      const durationMs = num(o, 'duration_ms');
      facts.tool = { ...facts.tool, failed: failureEvent || outcome.failed === true, ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}), ...(durationMs !== undefined ? { durationMs } : {}) };
    }
  }
  return facts;
}

/** The neutral answer of every command-hook agent (observed): exit 0 and nothing on stdout. "allow" is never neutral. */
const NEUTRAL = undefined;

/** Claude's PreToolUse deny (Codex and Qwen Code read the same): the reason is shown to the user and the model. */
export function claudeDeny(event: string, d: HookDenial): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: event, permissionDecision: 'deny', permissionDecisionReason: d.reason } });
}

/**
 * A Claude-shaped agent's adapter: its spec, its pre-tool event(s) and its deny shape. An event the
 * spec does not list was never installed by Beacon: refused (and answered neutrally).
 */
export function claudeShapeAdapter(spec: ClaudeShapeSpec, policyEvents: readonly string[], deny: (event: string, d: HookDenial) => string): HookAdapter {
  const policy = new Set(policyEvents);
  return {
    platform: spec.agent.harness,
    events: Object.keys(spec.phases),
    policyEvents: policy,
    read(event: string, payload: string, ctx: HookEventContext): HookReading {
      return hookFactEvents(spec.agent, claudeShapeFacts(spec, event, payloadObject(payload)), ctx);
    },
    reply: (event, denial) => (denial && policy.has(event) ? deny(event, denial) : NEUTRAL),
  };
}
