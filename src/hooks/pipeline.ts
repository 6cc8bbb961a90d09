import { ingestEvents } from '../ingest/ingest';
import { redactedCopy } from '../ingest/rows';
import type { EventSink } from '../ingest/sink';
import { callEventId, freshEventId, invocationEventId } from '../model/event-id';
import type { NormalizedEvent, Severity } from '../model/record';
import { nowUnixNano } from '../model/time';
import type { HookAdapter, HookEventContext } from '../sources/hook-adapter';
import { hookFailureEvent } from '../sources/hook-facts';
import { consultPolicy, policyProvider, type PolicyVerdict } from './policy';

const SEVERITIES = new Set(['info', 'low', 'medium', 'high', 'critical']);

export interface HookContext {
  /** where the events go: a direct log sink in `beacon-hooks`, the writer thread in the collector */
  sink: EventSink;
  env: NodeJS.ProcessEnv;
  /**
   * The launcher's key for this invocation: events with no identity of their own (a prompt, a
   * stop) take their id from it, so the fast path and the fallback recording the same invocation
   * store one event, while the same prompt typed twice (two invocations) is still two.
   */
  idempotencyKey?: string;
  /** the working directory an earlier hook event of the session reported, for events the agent sends without one */
  rememberedDir?: (sessionId: string) => string | undefined;
  /** Beacon's call id for agents that send none (see call-pairing.ts) */
  pairCall?: HookEventContext['pairCall'];
}

export interface HookOutcome {
  /** what the agent reads on stdout; undefined for nothing (most agents' neutral answer) */
  reply?: string;
  /** what went wrong (for stderr), never content */
  errors: string[];
  /** false when the sink failed: the events are not in the log (the fast path then falls back) */
  recorded: boolean;
}

/**
 * One hook call of any agent: payload → the agent's adapter → events → rows → sink → the agent's
 * reply. Never throws: whatever goes wrong the agent gets its neutral answer (it must never be held
 * up or steered by Beacon) and the failure is in `errors`; a payload or event the adapter cannot
 * read is a `hook.failed` record, so the gap in the log has its reason. One function, so the
 * collector serves the same pipeline from its HTTP route.
 */
export async function handleHook(adapter: HookAdapter, event: string, payloadText: string, ctx: HookContext): Promise<HookOutcome> {
  const errors: string[] = [];
  let verdict: PolicyVerdict = { decision: 'allow' };
  let recorded = true;
  const eventCtx: HookEventContext = { now: nowUnixNano(), env: ctx.env, key: ctx.idempotencyKey, rememberedDir: safely(ctx.rememberedDir), ...(ctx.pairCall ? { pairCall: ctx.pairCall } : {}) };
  let events: NormalizedEvent[];
  let candidate: (() => NormalizedEvent | undefined) | undefined;
  try {
    if (!adapter.events.includes(event)) throw new Error(`unknown subcommand "${event.slice(0, 40)}" for ${adapter.platform} (expected ${adapter.events.join(', ')})`);
    ({ events, candidate } = adapter.read(event, payloadText, eventCtx));
  } catch (e) {
    errors.push((e as Error).message);
    events = [hookFailureEvent(adapter.platform, event.slice(0, 40), (e as Error).message, eventCtx)];
  }
  try {
    const provider = candidate && adapter.policyEvents.has(event) ? policyProvider(ctx.env) : undefined;
    const judged = provider ? candidate?.() : undefined;
    if (provider && judged) {
      verdict = await consultPolicy(provider, { version: '1', phase: 'pre-tool', platform: adapter.platform, event: redactedCopy(judged) });
      if (verdict.decision === 'allow' && verdict.failure) errors.push(`policy provider ignored (fail-open): ${verdict.failure}`);
      if (verdict.decision === 'deny') events.push(denialEvent(events[0] ?? judged, verdict, ctx.idempotencyKey));
    }
    if (events.length > 0) {
      try {
        const r = await ingestEvents(events, ctx.sink);
        for (const x of r.rejected) errors.push(`event ${x.action} not recorded: ${x.reason}`);
      } catch (e) {
        recorded = false;
        throw e;
      }
    }
  } catch (e) {
    errors.push((e as Error).message);
  }
  const reply = neutralOr(adapter, event, verdict.decision === 'deny' ? { reason: verdict.reason } : undefined);
  return { ...(reply !== undefined ? { reply } : {}), errors, recorded };
}

/** The adapter's reply; should it ever fail, nothing (the neutral answer of every command-hook agent but one, whose launcher answers for it). */
export function neutralOr(adapter: HookAdapter, event: string, denial?: { reason: string }): string | undefined {
  try {
    return adapter.reply(event, denial);
  } catch {
    return undefined;
  }
}

/** A lookup that fails (a log not created yet, a busy disk) only means the directory stays unknown. */
function safely(lookup: ((id: string) => string | undefined) | undefined): ((id: string) => string | undefined) | undefined {
  if (!lookup) return undefined;
  return (id) => {
    try {
      return lookup(id);
    } catch {
      return undefined;
    }
  };
}

/** The provider's deny, recorded beside the observation it judged. */
function denialEvent(observed: NormalizedEvent, v: Extract<PolicyVerdict, { decision: 'deny' }>, key: string | undefined): NormalizedEvent {
  const record = structuredClone(observed.record);
  // This invocation's key, not the call id: a reused call id denied again in a later turn is a second
  // denial. goose's PreToolUseResult of this verdict (blocked by Beacon's plugin) records nothing more
  // (src/sources/goose/hook-events.ts chainDenial says what records a denial and why).
  const session = record.session?.id;
  const callId = record.gen_ai?.tool?.call?.id;
  const id = key ? invocationEventId(key, 'approval.denied') : session !== undefined && callId ? callEventId(session, 'approval.denied', callId) : freshEventId();
  record.event = { ...record.event, action: 'approval.denied', category: 'approval', id, fidelity: 'observed' };
  record.severity = (v.severity && SEVERITIES.has(v.severity) ? v.severity : 'high') as Severity;
  record.approval = { required: true, decision: 'deny', reason: v.reason };
  record.policy = { ...(v.ruleId ? { id: v.ruleId } : {}), decision: 'deny', enforcement: 'enforce', reason: v.reason };
  record.message = 'Tool call denied by policy provider';
  delete record.file?.diff;
  // a call Beacon pairs (no call id from the agent) ends here: the store joins it to its OTLP record (store/log/call-join.ts)
  return { record, timeUnixNano: observed.timeUnixNano, ...(observed.joinCall ? { joinCall: true } : {}) };
}
