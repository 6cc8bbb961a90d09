import { ingestEvents } from '../ingest/ingest';
import { redactedCopy } from '../ingest/rows';
import type { EventSink } from '../ingest/sink';
import { freshEventId } from '../model/event-id';
import type { NormalizedEvent, Severity } from '../model/record';
import { nowUnixNano } from '../model/time';
import { hookEvents } from './events';
import { BLOCKING, SUBCOMMANDS, parsePayload, type Subcommand } from './payload';
import { consultPolicy, policyProvider, type PolicyVerdict } from './policy';

const ALLOW = '{"decision":"allow"}';
const SEVERITIES = new Set(['info', 'low', 'medium', 'high', 'critical']);

export interface HookContext {
  /** where the events go: a direct log sink in `beacon-hooks`, the writer thread in the collector */
  sink: EventSink;
  env: NodeJS.ProcessEnv;
}

export interface HookOutcome {
  /** what goose reads on stdout; undefined for non-blocking events (goose ignores their output) */
  reply?: string;
  /** what went wrong (for stderr), never content */
  errors: string[];
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
  try {
    const payload = parsePayload(payloadText);
    const events = hookEvents(sub, payload, { now: nowUnixNano(), env: ctx.env });

    const provider = sub === 'pre-tool' && events.length > 0 ? policyProvider(ctx.env) : undefined;
    if (provider) {
      verdict = await consultPolicy(provider, { version: '1', phase: 'pre-tool', platform: 'goose', event: redactedCopy(events[0]!) });
      if (verdict.decision === 'allow' && verdict.failure) errors.push(`policy provider ignored (fail-open): ${verdict.failure}`);
      if (verdict.decision === 'deny') events.push(denialEvent(events[0]!, verdict));
    }
    if (events.length > 0) {
      const r = await ingestEvents(events, ctx.sink);
      for (const x of r.rejected) errors.push(`event ${x.action} not recorded: ${x.reason}`);
    }
  } catch (e) {
    errors.push((e as Error).message);
  }
  if (!BLOCKING.has(sub)) return { errors };
  return { reply: verdict.decision === 'deny' && sub === 'pre-tool' ? JSON.stringify({ decision: 'block', reason: verdict.reason }) : ALLOW, errors };
}

/** The reply when the pipeline could not even start (a bad command line). */
export const FALLBACK_REPLY = ALLOW;

/** The provider's deny, recorded beside the observation it judged. */
function denialEvent(observed: NormalizedEvent, v: Extract<PolicyVerdict, { decision: 'deny' }>): NormalizedEvent {
  const record = structuredClone(observed.record);
  record.event = { ...record.event, action: 'approval.denied', category: 'approval', id: freshEventId(), fidelity: 'observed' };
  record.severity = (v.severity && SEVERITIES.has(v.severity) ? v.severity : 'high') as Severity;
  record.approval = { required: true, decision: 'deny', reason: v.reason };
  record.policy = { ...(v.ruleId ? { id: v.ruleId } : {}), decision: 'deny', enforcement: 'enforce', reason: v.reason };
  record.message = 'Tool call denied by policy provider';
  delete record.file?.diff;
  return { record, timeUnixNano: observed.timeUnixNano };
}
