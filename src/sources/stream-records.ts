import { localUser, newRecord } from '../model/envelope';
import { callEventId, contentEventId, freshEventId } from '../model/event-id';
import type { StreamEvent, StreamUsageReport } from '../model/harness-event';
import type { BeaconRecord, NormalizedEvent } from '../model/record';
import { applyToolClassification, type ClassifyOptions, type ToolOutcome } from '../taxonomy/classify';
import type { StreamRecordContext } from './stream-adapter';

/** An agent's stream as Beacon records it: its harness name and its tool table in the taxonomy. */
export interface StreamRecordAgent {
  harness: string;
  classify(name: string, args: unknown, options: ClassifyOptions): ToolOutcome;
}

/**
 * A harness event of an agent's stream (not goose's: sources/goose/stream-record.ts) → its Beacon
 * record, `harness.collection_method = stream`. Ids are deterministic within the session (these
 * streams name one), so a replayed stream adds nothing, and a tool call carries the agent's call id
 * as the hook path does (`callEventId`): a call both paths saw is one event, not two.
 */
export function agentStreamRecord(ev: StreamEvent, ctx: StreamRecordContext, agent: StreamRecordAgent): NormalizedEvent | undefined {
  const d = ev.detail;
  const h = ev.harness;
  const at = h?.timestamp ?? d.timestamp;
  const ms = at ? Date.parse(at) : NaN;
  const ns = BigInt(Number.isNaN(ms) ? Date.now() : ms) * 1_000_000n;
  const scope = ctx.sessionId ?? `run:${ctx.runId}`;
  const record = (r: BeaconRecord): NormalizedEvent => {
    if (ctx.workingDirectory) r.session = { ...r.session, working_directory: ctx.workingDirectory };
    if (d.model && !r.model) r.model = d.model;
    return { record: r, timeUnixNano: ns };
  };
  const base = (action: string, category: string, id: string, message: string) => baseRecord(ns, action, category, id, agent.harness, ctx.sessionId, message);

  if (h === null) return d.usageReport ? record(usageRecord(d.usageReport, scope, base)) : undefined;
  switch (h.type) {
    case 'agent':
    case 'reasoning': {
      const r = base(h.type === 'agent' ? 'agent.message' : 'agent.reasoning', 'agent', contentEventId(JSON.stringify(['stream', scope, h.type, d.messageId ?? '', h.message])), h.type === 'agent' ? 'Agent message' : 'Agent reasoning');
      if (h.type === 'reasoning') r.reasoning = { text: h.message };
      else r.gen_ai = { output: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: h.message }] }] } };
      return record(r);
    }
    case 'error': {
      const r = base('agent.error', 'error', contentEventId(JSON.stringify(['stream-error', scope, h.timestamp, h.code ?? '', h.message])), h.message);
      r.severity = 'high';
      r.error = { type: h.code ?? `${agent.harness}_error` };
      return record(r);
    }
    default: {
      if (d.tool) {
        const r = toolRecord(ev, scope, agent, base);
        return r ? record(r) : undefined;
      }
      if (h.type !== 'unknown') return undefined;
      const r = base('agent.unknown', 'agent', freshEventId(), `Unrecognized ${agent.harness} stream record`);
      r.raw = { stream: h.raw };
      return record(r);
    }
  }
}

/** A record of the run, made by its adapter: its time, harness, user and session. */
export type Base = (action: string, category: string, id: string, message: string) => BeaconRecord;

/**
 * Usage the stream reported (`usage.reported`): a run's totals (usage_scope run: Codex's turn,
 * Gemini's and Claude's result) or one model call's (usage_scope call: opencode's step_finish,
 * whose ids join none of its OTLP records). The report says which path's numbers count:
 * token-usage adds it only for a session none of whose model calls arrived one by one (OTLP,
 * hooks), because those are per call and exact, and both would count every token twice.
 */
function usageRecord(u: StreamUsageReport, scope: string, base: Base): BeaconRecord {
  const r = base('usage.reported', 'usage', contentEventId(JSON.stringify(['stream-usage', scope, u.scope, u.callId ?? '', u.reported])), u.scope === 'run' ? 'Run usage reported by the stream' : 'Model call usage reported by the stream');
  r.gen_ai = { usage: u.usage };
  r.raw = { usage_scope: u.scope, stream_usage: u.reported, authoritative: 'model calls recorded one by one (OTLP, hooks); this report counts only for a session with none' };
  return r;
}

/**
 * A tool event (request and result, or unanswered) → its record, classified by the agent's tool
 * table: keyed by the agent's call id (`callEventId`), as the hook and OTLP paths key the same call.
 */
export function toolRecord(ev: StreamEvent, scope: string, agent: StreamRecordAgent, base: Base): BeaconRecord | undefined {
  const t = ev.detail.tool!;
  const cls = agent.classify(t.name, t.arguments, { failed: t.failed, withDiff: t.answered && !t.failed });
  if ('consumed' in cls) return undefined;
  const action = t.failed ? 'tool.failed' : cls.action;
  const r = base(action, t.failed ? 'tool' : cls.category, callEventId(scope, action, t.callId), t.failed ? 'Tool call failed' : t.answered ? cls.message : 'Tool call not answered before the stream ended');
  r.event.fidelity = cls.fidelity;
  if (t.failed) r.severity = 'high';
  applyToolClassification(r, cls);
  if (r.command && t.exitCode !== undefined) r.command.exit_code = t.exitCode;
  r.gen_ai = { tool: { name: t.name, call: { id: t.callId, arguments: t.arguments } } };
  r.raw = { harness_event: ev.harness!.type, answered: t.answered };
  return r;
}

/** A stream record's envelope: collection method `stream`, the local user, the session when there is one. */
export function baseRecord(ns: bigint, action: string, category: string, id: string, harness: string, sessionId: string | undefined, message: string): BeaconRecord {
  const r = newRecord({ timeUnixNano: ns, action, category, id, harness: { name: harness, collection_method: 'stream' }, message });
  r.user = localUser();
  if (sessionId !== undefined) r.session = { id: sessionId };
  return r;
}
