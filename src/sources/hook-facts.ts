import { createHash } from 'node:crypto';
import { localUser, newRecord } from '../model/envelope';
import { callEventId, freshEventId, invocationEventId } from '../model/event-id';
import { cutDeepNesting } from '../model/nesting';
import type { NormalizedEvent } from '../model/record';
import { applyToolClassification, type ClassifyOptions, type ToolOutcome } from '../taxonomy/classify';
import { gitBranch } from './git-branch';
import { HOOK_FAILED, type HookEventContext, type HookReading } from './hook-adapter';

/** Where in an agent's turn a hook event sits, whatever the agent calls it. */
export type HookPhase = 'session-start' | 'prompt' | 'pre-tool' | 'post-tool' | 'stop' | 'session-end';

/** What a hook payload says, read by the agent's own module into one shape for every agent. */
export interface HookFacts {
  /** the agent's own name for the hook that fired, as its configuration spells it (`AfterTool`, `postToolUse`, `tool.execute.after`) */
  event: string;
  phase: HookPhase;
  sessionId?: string;
  cwd?: string;
  /** the user's prompt; '' (Qwen's continuation calls fire UserPromptSubmit with an empty prompt) is no prompt */
  prompt?: string;
  /** the agent's id of the prompt (on the stop event: of the turn's prompt), where the payload has it and its OTLP export carries the same (Claude's and Qwen's `prompt_id`) */
  promptId?: string;
  /** the turn's final answer (Stop's `last_assistant_message`, Gemini's `prompt_response`) */
  response?: string;
  tool?: HookToolCall;
}

export interface HookToolCall {
  name: string;
  input: unknown;
  /** the model's call id, where the payload has it (so the hook's records and the OTLP export's join) */
  callId?: string;
  /** the call id is Beacon's pairing of the call (`beacon:<key>.<n>`), not the agent's: the store may give the call the agent's id (store/log/call-join.ts) */
  paired?: boolean;
  /** post-tool: the call failed (the agent's failure event, an error, a non-zero exit code) */
  failed?: boolean;
  exitCode?: number;
  durationMs?: number;
}

/** An agent as its hook records need it: its harness name and its own tool table. */
export interface HookAgent {
  harness: string;
  classifyTool(name: string, input: unknown, options?: ClassifyOptions): ToolOutcome;
  /** its payloads carry no call id: Beacon pairs a call's pre and post records itself */
  pairsCalls?: boolean;
  /**
   * the prompt's length as the agent's OTLP `prompt_length` counts it, for agents that export one:
   * the prompt's hook and OTLP records are one prompt only if the two agree (store/log/prompt-join.ts)
   */
  promptLength?(text: string): number;
}

/** JavaScript's `length` (UTF-16 code units): Claude Code's, Gemini CLI's and Qwen Code's `prompt_length`. */
export const utf16Length = (text: string): number => text.length;
/** Unicode scalar values: Codex's `prompt_length` (Rust's `chars().count()`). */
export const codePointLength = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/** The payload as a JSON object; the errors never quote it (a prompt does not belong in the agent's log). */
export function payloadObject(text: string): Record<string, unknown> {
  if (text.trim() === '') throw new Error('no hook payload on stdin');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error(`hook payload is not valid JSON (${Buffer.byteLength(text)} bytes)`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('hook payload is not a JSON object');
  // nested deeper than any walk after this can follow: cut and marked, the event kept (issue 22 item 14)
  return cutDeepNesting(v as Record<string, unknown>).value;
}

/** The facts → Beacon's events: the same records for every agent (collection_method hook, the agent's harness name). */
export function hookFactEvents(agent: HookAgent, f: HookFacts, ctx: HookEventContext): HookReading {
  const tool = f.tool ? withPairedId(agent, f, f.tool, ctx) : undefined;
  switch (f.phase) {
    case 'session-start':
      return { events: [simple(agent, f, ctx, 'session.started', 'session', 'Agent session started')] };
    case 'session-end':
      return { events: [simple(agent, f, ctx, 'session.ended', 'session', 'Agent session ended')] };
    case 'prompt': {
      if (f.prompt === '') return { events: [] };
      const ev = simple(agent, f, ctx, 'prompt.submitted', 'prompt', 'Prompt submitted to agent');
      // the length counted here, before redaction and limits change the text, as the agent counts it
      const length = f.prompt !== undefined && agent.promptLength ? agent.promptLength(f.prompt) : undefined;
      if (f.prompt !== undefined || f.promptId) ev.record.prompt = { ...(f.prompt !== undefined ? { text: f.prompt } : {}), ...(f.promptId ? { id: f.promptId } : {}), ...(length !== undefined ? { length } : {}) };
      return { events: [ev] };
    }
    case 'stop': {
      const ev = simple(agent, f, ctx, 'tool.completed', 'tool', 'Agent response completed');
      if (f.response) ev.record.response = { text: f.response };
      if (f.promptId) ev.record.prompt = { id: f.promptId };
      return { events: [ev] };
    }
    case 'pre-tool': {
      if (!tool) return { events: [] };
      const observed = toolEvent(agent, f, tool, ctx, 'pre');
      return { events: observed ? [observed] : [], candidate: () => toolEvent(agent, f, { ...tool, failed: false }, ctx, 'post') };
    }
    case 'post-tool': {
      const ev = tool ? toolEvent(agent, f, tool, ctx, 'post') : undefined;
      return { events: ev ? [ev] : [] };
    }
  }
}

/** Gemini and Copilot send no call id: the call's tool and arguments name it, the log's earlier records its turn. */
function withPairedId(agent: HookAgent, f: HookFacts, tool: HookToolCall, ctx: HookEventContext): HookToolCall {
  if (tool.callId || !agent.pairsCalls || f.sessionId === undefined || !ctx.pairCall) return tool;
  if (f.phase !== 'pre-tool' && f.phase !== 'post-tool') return tool;
  const key = `beacon:${createHash('sha256').update(JSON.stringify([tool.name, tool.input ?? null])).digest('hex').slice(0, 24)}`;
  const callId = ctx.pairCall(f.sessionId, key, f.phase === 'pre-tool' ? 'pre' : 'post');
  return callId ? { ...tool, callId, paired: true } : tool;
}

/**
 * pre: `tool.invoked`, an observation (the agent's own permission step decides; no approval is
 * claimed). post: the classified action with the diff built from the call's own arguments, or
 * `tool.failed` (severity high, never a diff: a failed edit changed nothing), the exit code and
 * duration where the payload has them.
 */
function toolEvent(agent: HookAgent, f: HookFacts, tool: HookToolCall, ctx: HookEventContext, phase: 'pre' | 'post'): NormalizedEvent | undefined {
  const failed = phase === 'post' && (tool.failed === true || (tool.exitCode !== undefined && tool.exitCode !== 0));
  const cls = agent.classifyTool(tool.name, tool.input, { withDiff: phase === 'post', failed });
  if ('consumed' in cls) return undefined;
  const action = phase === 'pre' ? 'tool.invoked' : failed ? 'tool.failed' : cls.action;
  // An unclassified tool is `tool.invoked` before and after: the post record needs an identity of its own.
  const identity = phase === 'post' && action === 'tool.invoked' ? 'tool.invoked/post' : action;
  const id = tool.callId && f.sessionId !== undefined ? callEventId(f.sessionId, identity, tool.callId) : invocationId(ctx, identity);
  const message = phase === 'pre' ? 'Tool invocation observed' : failed ? 'Tool call failed' : cls.message;
  const ev = base(agent, f, ctx, action, phase === 'post' && !failed ? cls.category : 'tool', message, id);
  const r = ev.record;
  r.event.fidelity = phase === 'post' ? cls.fidelity : 'observed';
  if (failed) r.severity = 'high';
  applyToolClassification(r, cls);
  // the pairing's own id stays on the record when the store gives the call the agent's id from its OTLP export
  r.raw = { ...r.raw, ...hookTrace(f.event, f.phase), ...(tool.paired ? { paired_call: tool.callId } : {}) };
  if (tool.paired) ev.joinCall = true;
  if (r.command && phase === 'post') {
    if (tool.exitCode !== undefined) r.command.exit_code = tool.exitCode;
    if (tool.durationMs !== undefined) r.command.duration_ms = tool.durationMs;
  }
  const call = { ...(tool.callId ? { id: tool.callId } : {}), ...(tool.input !== undefined ? { arguments: tool.input } : {}) };
  r.gen_ai = { tool: { name: tool.name, ...(Object.keys(call).length > 0 ? { call } : {}) } };
  return ev;
}

/**
 * Which of the agent's hooks saw a tool record: its own name for it and where it sits in the turn.
 * An unclassified tool is `tool.invoked` before and after it ran, so the join tells a call's
 * post-tool record from the next call's pre-tool under a reused call id by the phase, whatever the
 * agent calls its hooks (store/queries/tool-calls.ts), not by guessing from order.
 */
export function hookTrace(event: string, phase: HookPhase): { hook_event: string; hook_phase: HookPhase } {
  return { hook_event: event, hook_phase: phase };
}

/**
 * Beacon's own hook could not do its job on this invocation (a payload it cannot read, an event it
 * does not know): a `hook.failed` record (severity medium, the cause, never the payload), so a
 * gap in the log has a reason beside it. The agent still got its neutral answer.
 */
export function hookFailureEvent(harness: string, event: string, cause: string, ctx: HookEventContext): NormalizedEvent {
  const record = newRecord({ timeUnixNano: ctx.now, action: HOOK_FAILED, category: 'hook', id: invocationId(ctx, HOOK_FAILED), harness: { name: harness, collection_method: 'hook' }, message: `Beacon's ${harness} hook could not record this event` });
  record.user = localUser();
  record.severity = 'medium';
  record.error = { type: 'hook_payload' };
  record.raw = { hook_event: event, cause };
  return { record, timeUnixNano: ctx.now };
}

/** An id for an event with no identity of its own: from the invocation's key when there is one. */
export function invocationId(ctx: HookEventContext, action: string): string {
  return ctx.key ? invocationEventId(ctx.key, action) : freshEventId();
}

function simple(agent: HookAgent, f: HookFacts, ctx: HookEventContext, action: string, category: string, message: string): NormalizedEvent {
  // A prompt, a session start or a stop has no identity of its own: the same prompt twice is two events.
  return base(agent, f, ctx, action, category, message, invocationId(ctx, action));
}

function base(agent: HookAgent, f: HookFacts, ctx: HookEventContext, action: string, category: string, message: string, id: string): NormalizedEvent {
  return hookRecordEvent(agent.harness, f, ctx, action, category, message, id);
}

/**
 * A hook record of any agent: its session and working directory where the payload names them (no
 * fallback to this process's cwd: under goose's desktop app it is the application bundle), and the
 * repository and branch of that directory, or of the one an earlier event of the session reported
 * (goose and others omit it on a prompt or a session start).
 */
export function hookRecordEvent(harness: string, f: Pick<HookFacts, 'sessionId' | 'cwd'>, ctx: HookEventContext, action: string, category: string, message: string, id: string): NormalizedEvent {
  const record = newRecord({ timeUnixNano: ctx.now, action, category, id, harness: { name: harness, collection_method: 'hook' }, message });
  record.user = localUser();
  if (f.sessionId !== undefined || f.cwd) record.session = { ...(f.sessionId !== undefined ? { id: f.sessionId } : {}), ...(f.cwd ? { working_directory: f.cwd } : {}) };
  const dir = f.cwd || (f.sessionId !== undefined ? ctx.rememberedDir?.(f.sessionId) : undefined);
  if (dir) {
    record.repository = dir;
    const branch = gitBranch(dir, ctx.env);
    if (branch) record.branch = branch;
  }
  return { record, timeUnixNano: ctx.now };
}
