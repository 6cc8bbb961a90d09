import { ingestEvents } from '../ingest/ingest';
import { redactedCopy } from '../ingest/rows';
import type { EventSink } from '../ingest/sink';
import { callEventId, freshEventId, invocationEventId } from '../model/event-id';
import type { NormalizedEvent, Severity } from '../model/record';
import { nowUnixNano } from '../model/time';
import { hookEvents, policyCandidate } from '../sources/goose/hook-events';
import { BLOCKING, SUBCOMMANDS, parsePayload, type Subcommand } from '../sources/goose/hook-payload';
import { consultPolicy, policyProvider, type PolicyVerdict } from './policy';

const ALLOW = '{"decision":"allow"}';
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
  /** the working directory an earlier hook event of the session reported, for events goose sends without one */
  rememberedDir?: (sessionId: string) => string | undefined;
}

export interface HookOutcome {
  /** what goose reads on stdout; undefined for non-blocking events (goose ignores their output) */
  reply?: string;
  /** what went wrong (for stderr), never content */
  errors: string[];
  /** false when the sink failed: the events are not in the log (the fast path then falls back) */
  recorded: boolean;
}

export function isSubcommand(name: string | undefined): name is Subcommand {
  return SUBCOMMANDS.includes(name as Subcommand);
}

/**
 * One goose hook call: payload → events → rows → sink → reply. Never throws: whatever goes wrong,
 * a blocking hook still answers allow (goose must never be held up by Beacon) and the failure is
 * in `errors`. One function, so the collector can serve the same pipeline from an HTTP route.
 */
export async function handleHook(sub: Subcommand, payloadText: string, ctx: HookContext): Promise<HookOutcome> {
  const errors: string[] = [];
  let verdict: PolicyVerdict = { decision: 'allow' };
  let recorded = true;
  try {
    const payload = parsePayload(payloadText);
    const eventCtx = { now: nowUnixNano(), env: ctx.env, key: ctx.idempotencyKey, rememberedDir: safely(ctx.rememberedDir) };
    const events = hookEvents(sub, payload, eventCtx);

    const provider = sub === 'pre-tool' && events.length > 0 ? policyProvider(ctx.env) : undefined;
    if (provider) {
      const candidate = policyCandidate(payload, eventCtx) ?? events[0]!;
      verdict = await consultPolicy(provider, { version: '1', phase: 'pre-tool', platform: 'goose', event: redactedCopy(candidate) });
      if (verdict.decision === 'allow' && verdict.failure) errors.push(`policy provider ignored (fail-open): ${verdict.failure}`);
      if (verdict.decision === 'deny') events.push(denialEvent(events[0]!, verdict, ctx.idempotencyKey));
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
  if (!BLOCKING.has(sub)) return { errors, recorded };
  return { reply: verdict.decision === 'deny' && sub === 'pre-tool' ? JSON.stringify({ decision: 'block', reason: verdict.reason }) : ALLOW, errors, recorded };
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

/** The reply when the pipeline could not even start (a bad command line). */
export const FALLBACK_REPLY = ALLOW;

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
  return { record, timeUnixNano: observed.timeUnixNano };
}
