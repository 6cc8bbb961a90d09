import { callEventId, freshEventId, invocationEventId } from '../../model/event-id';
import type { NormalizedEvent } from '../../model/record';
import { applyToolClassification } from '../../taxonomy/classify';
import { classifyGooseTool } from './tools';
import { BEACON_GOOSE_PLUGIN } from './hook-health';
import { HOOK_FAILED, type HookEventContext } from '../hook-adapter';
import { hookRecordEvent, hookTrace, invocationId } from '../hook-facts';
import type { GoosePayload, Subcommand } from './hook-payload';

type Context = HookEventContext;

/** A call's record: the invocation's key (a reused call id in a later turn is another call), else the session and call id. */
function callRecordId(p: GoosePayload, ctx: Context, identity: string): string {
  return ctx.key ? invocationEventId(ctx.key, identity) : p.tool_call_id && p.session_id !== undefined ? callEventId(p.session_id, identity, p.tool_call_id) : freshEventId();
}


/** goose hook payload → the Beacon events it stands for (none for goose's internal todo tool). */
export function hookEvents(sub: Subcommand, p: GoosePayload, ctx: Context): NormalizedEvent[] {
  switch (sub) {
    case 'session-start':
      return [simple(p, ctx, 'session.started', 'session', 'Agent session started')];
    case 'session-end':
      return [simple(p, ctx, 'session.ended', 'session', 'Agent session ended')];
    case 'stop': {
      const ev = simple(p, ctx, 'tool.completed', 'tool', 'Agent response completed');
      // The turn's final answer: content like a prompt (redacted, limited, marked by the ingest stage).
      if (p.last_assistant_message !== undefined && p.last_assistant_message !== '') {
        ev.record.response = { text: p.last_assistant_message };
      }
      return [ev];
    }
    case 'pre-tool-result':
      return p.decision === 'allow' && p.policy_evaluated === false ? failedOpen(p, ctx) : chainDenial(p, ctx);
    case 'prompt-submit': {
      const ev = simple(p, ctx, 'prompt.submitted', 'prompt', 'Prompt submitted to agent');
      if (p.message !== undefined && p.message !== '') {
        ev.record.prompt = { text: p.message };
      }
      return [ev];
    }
    case 'pre-tool':
      return toolEvent(p, ctx, 'pre');
    case 'post-tool':
      return toolEvent(p, ctx, p.event === 'PostToolUseFailure' ? 'failed' : 'post');
  }
}

/**
 * What a policy provider judges before a call runs: the call as it will be classified once it has
 * run (`command.executed` with `command.command`, `file.modified` with the diff), not the bare
 * `tool.invoked` observation, so a provider written against the Go Beacon's contract sees the same
 * candidate (its reference case: `curl … | sh` reaches the provider as `command.executed`).
 */
export function policyCandidate(p: GoosePayload, ctx: Context): NormalizedEvent | undefined {
  return toolEvent(p, ctx, 'post')[0];
}

/**
 * pre: `tool.invoked`, an observation (goose's permission step already ran; no approval is claimed).
 * post: the classified action, with a diff for write/edit. failed: `tool.failed`, and never a diff —
 * goose reports a failed edit with the same name and arguments as one that landed.
 */
function toolEvent(p: GoosePayload, ctx: Context, phase: 'pre' | 'post' | 'failed'): NormalizedEvent[] {
  const name = p.tool_name ?? '';
  const cls = classifyGooseTool(name, p.tool_input, { withDiff: phase === 'post', failed: phase === 'failed' });
  if ('consumed' in cls) return [];
  const action = phase === 'pre' ? 'tool.invoked' : phase === 'failed' ? 'tool.failed' : cls.action;
  const category = phase === 'post' ? cls.category : 'tool';
  const message = phase === 'pre' ? 'Tool invocation observed' : phase === 'failed' ? 'Tool call failed' : cls.message;
  // An unclassified tool is `tool.invoked` both before and after it ran: the post-tool observation
  // gets an identity of its own, or it would be dropped as a replay of the pre-tool one.
  const identity = phase === 'post' && action === 'tool.invoked' ? 'tool.invoked/post' : action;
  // The invocation's key first: the fast path and the fallback recording one invocation agree on it,
  // while a provider reusing call ids within a session (call_1 in every turn) makes two invocations
  // of one (session, action, call id) — two calls, not a replay to drop. Without a key, the call's id.
  const ev = base(p, ctx, action, category, message, callRecordId(p, ctx, identity));
  const r = ev.record;
  r.event.fidelity = phase === 'post' ? cls.fidelity : 'observed';
  if (phase === 'failed') r.severity = 'high';
  applyToolClassification(r, cls);
  r.raw = { ...r.raw, ...hookTrace(phase === 'pre' ? 'PreToolUse' : phase === 'failed' ? 'PostToolUseFailure' : 'PostToolUse', phase === 'pre' ? 'pre-tool' : 'post-tool') };
  r.gen_ai = {
    tool: { name, ...(p.tool_call_id || p.tool_input !== undefined ? { call: { ...(p.tool_call_id ? { id: p.tool_call_id } : {}), ...(p.tool_input !== undefined ? { arguments: p.tool_input } : {}) } } : {}) },
  };
  return [ev];
}

/**
 * goose's PreToolUseResult: the verdict of the whole hook chain on a call, sent once per call. An allow
 * is what the pre-tool event already implies: nothing to record. A deny (another plugin's policy, or
 * a hook that failed with `on_failure: block`) is the only trace of the call left, since goose skips
 * the post hooks after a deny.
 *
 * Its id is this invocation's (the key), not the call's: a provider reusing `call_1` in a later turn
 * makes a second denial of one (session, call id), and keyed by the call it was dropped as a replay.
 * What records one denial, and how they stay one:
 * - Beacon's own provider denies in the pre-tool invocation, which records it (src/hooks/pipeline.ts,
 *   under that invocation's key). goose then reports the same verdict here, blocked by Beacon's
 *   plugin: nothing is recorded again. A hook failure of Beacon's own is recorded here (the pre-tool
 *   invocation that failed recorded no verdict).
 * - Another plugin's denial is recorded here only; the fast path and the fallback of this invocation
 *   share its key, so they store it once.
 * - goose's `execute_tool` span of the same denial (OTLP, hook_denied / hook_failed) shares nothing
 *   with a hook invocation that tells two calls under one id apart — it carries a trace and span id,
 *   the hook a launcher key, both the reused call id — so it is a record of its own under the call's
 *   id; the timeline, the sessions page and the overview join it and the hook's into one call (each
 *   path's verdict once per call: src/store/queries/tool-calls.ts).
 */
function chainDenial(p: GoosePayload, ctx: Context): NormalizedEvent[] {
  if (p.decision !== 'deny') return [];
  const hookFailure = p.cause === 'hook_failure';
  if (p.blocked_by === BEACON_GOOSE_PLUGIN && !hookFailure && ctx.key) return [];
  const id = callRecordId(p, ctx, 'approval.denied');
  const by = p.blocked_by ? ` \`${p.blocked_by}\`` : '';
  const ev = base(p, ctx, 'approval.denied', 'approval', hookFailure ? `Tool call blocked: policy hook${by} could not complete` : `Tool call denied by policy hook${by}`, id);
  const r = ev.record;
  r.severity = 'high';
  r.approval = { required: true, decision: 'deny', ...(p.reason ? { reason: p.reason } : {}) };
  r.policy = { ...(p.blocked_by ? { name: p.blocked_by } : {}), decision: 'deny', enforcement: 'enforce', ...(p.reason ? { reason: p.reason } : {}) };
  if (hookFailure) r.error = { type: 'hook_failure' };
  const name = p.tool_name ?? '';
  const cls = classifyGooseTool(name, p.tool_input, { withDiff: false, failed: false });
  if (!('consumed' in cls)) applyToolClassification(r, cls);
  r.gen_ai = { tool: { name, ...(p.tool_call_id ? { call: { id: p.tool_call_id } } : {}) } };
  return [ev];
}

/**
 * goose's PreToolUseResult allow with `policy_evaluated: false`: no PreToolUse hook completed (Beacon's
 * own timed out, crashed or was not run; `on_failure: allow` gives no cause), so the call went ahead
 * unchecked. A `hook.failed` record (severity medium, the cause), never silence. This invocation is its
 * only hook recorder (goose's `execute_hook` span is a record of its own, by span id), so its id is
 * this invocation's key: a second unchecked call under a reused call id is a second record.
 */
function failedOpen(p: GoosePayload, ctx: Context): NormalizedEvent[] {
  const id = callRecordId(p, ctx, HOOK_FAILED);
  const ev = base(p, ctx, HOOK_FAILED, 'hook', 'Tool call ran unchecked: no PreToolUse hook completed', id);
  const r = ev.record;
  r.severity = 'medium';
  r.error = { type: 'policy_not_evaluated' };
  r.policy = { decision: 'allow', enforcement: 'none', reason: 'no PreToolUse hook completed (policy_evaluated: false)' };
  r.raw = { cause: p.cause ?? 'policy_not_evaluated', hook_event: 'PreToolUse' };
  const name = p.tool_name ?? '';
  const cls = classifyGooseTool(name, p.tool_input, { withDiff: false, failed: false });
  if (!('consumed' in cls)) applyToolClassification(r, cls);
  r.gen_ai = { tool: { name, ...(p.tool_call_id ? { call: { id: p.tool_call_id } } : {}) } };
  return [ev];
}

function simple(p: GoosePayload, ctx: Context, action: string, category: string, message: string): NormalizedEvent {
  // A prompt, a session start or a stop has no identity of its own: the same prompt twice is two events.
  return base(p, ctx, action, category, message, invocationId(ctx, action));
}

function base(p: GoosePayload, ctx: Context, action: string, category: string, message: string, id: string): NormalizedEvent {
  return hookRecordEvent('goose', { sessionId: p.session_id, cwd: p.working_dir }, ctx, action, category, message, id);
}
