import { callEventId, contentEventId, freshEventId } from '../../model/event-id';
import type { BeaconRecord, NormalizedEvent } from '../../model/record';
import { baseRecord, toolRecord as agentToolRecord, type StreamRecordAgent } from '../stream-records';
import { classifyGooseTool } from './tools';

const GOOSE_AGENT: StreamRecordAgent = { harness: 'goose', classify: classifyGooseTool };
import type { StreamEvent } from '../../model/harness-event';

/**
 * A harness event (and what the stream said around it) → the Beacon record stored for it, with
 * `harness.collection_method = stream`. Tool calls use the taxonomy shared with the hook and OTLP
 * paths, and carry goose's tool call id, which joins them to those paths' events.
 */
export function streamRecord(ev: StreamEvent, sessionId?: string, runId?: string, workingDirectory?: string): NormalizedEvent | undefined {
  const rec = recordOf(ev, sessionId, runId);
  // goose's banner names the run's directory: like the hook path, it is the session's and the repository.
  if (rec && workingDirectory) {
    rec.record.session = { ...rec.record.session, working_directory: workingDirectory };
    rec.record.repository = workingDirectory;
  }
  return rec;
}

function recordOf(ev: StreamEvent, sessionId?: string, runId?: string): NormalizedEvent | undefined {
  const d = ev.detail;
  if (d.unrecorded) return undefined;
  const h = ev.harness;
  const ms = h ? Date.parse(h.timestamp) : NaN;
  const ns = BigInt(Number.isNaN(ms) ? Date.now() : ms) * 1_000_000n;
  // What an id is unique within: the session the user named, else this run. goose reuses tool call
  // ids across runs (`call_1`…), so two runs without --session must never share an event id.
  const scope = sessionId ?? (runId !== undefined ? `run:${runId}` : 'stream');

  if (h === null) {
    if (d.approval) return approvalRecord(d.approval, d.timestamp ? BigInt(Date.parse(d.timestamp)) * 1_000_000n : ns, sessionId, scope);
    if (!d.usageReport) return undefined;
    const u = d.usageReport.reported;
    const r = base(ns, 'usage.reported', 'usage', freshEventId(), sessionId, 'Session usage reported by goose');
    r.gen_ai = {
      usage: d.usageReport.usage,
      ...(d.provider ? { provider: { name: d.provider } } : {}),
    };
    if (d.model) r.model = d.model;
    r.raw = { stream_record: 'complete', usage_scope: 'session_cumulative', cost_source: u.cost_usd !== undefined ? 'reported' : undefined, total_tokens: u.total_tokens, input_tokens: u.input_tokens };
    return { record: r, timeUnixNano: ns };
  }

  switch (h.type) {
    case 'agent':
    case 'reasoning': {
      const action = h.type === 'agent' ? 'agent.message' : 'agent.reasoning';
      const r = base(ns, action, 'agent', contentEventId(JSON.stringify(['stream', scope, h.type, d.messageId ?? '', h.message])), sessionId, h.type === 'agent' ? 'Agent message' : 'Agent reasoning');
      if (d.model) r.model = d.model;
      if (d.provider) r.gen_ai = { provider: { name: d.provider } };
      if (h.type === 'reasoning') {
        r.reasoning = { text: h.message };
        return { record: r, timeUnixNano: ns };
      }
      r.gen_ai = { ...r.gen_ai, output: { messages: [{ role: 'assistant', parts: [{ type: 'text', content: h.message }] }] } };
      return { record: r, timeUnixNano: ns };
    }
    case 'error': {
      const r = base(ns, 'agent.error', 'error', freshEventId(), sessionId, h.message);
      r.severity = 'high';
      r.error = { type: h.code ?? 'goose_error' };
      return { record: r, timeUnixNano: ns };
    }
    default:
      if (d.tool) return toolRecord(ev, ns, sessionId, scope);
      if (h.type === 'unknown') {
        const r = base(ns, 'agent.unknown', 'agent', freshEventId(), sessionId, 'Unrecognized goose stream record');
        r.raw = { stream: h.raw };
        return { record: r, timeUnixNano: ns };
      }
      return undefined;
  }
}

/** The tool call's record, as every agent's stream makes it (stream-records.ts), from goose's tool table. */
function toolRecord(ev: StreamEvent, ns: bigint, sessionId: string | undefined, scope: string): NormalizedEvent | undefined {
  const r = agentToolRecord(ev, scope, GOOSE_AGENT, (action, category, id, message) => base(ns, action, category, id, sessionId, message));
  if (!r) return undefined;
  if (ev.detail.model) r.model = ev.detail.model;
  return { record: r, timeUnixNano: ns };
}

const ALLOWS = new Set(['allow_once', 'always_allow']);

/**
 * goose's confirmation request → `approval.requested`; the user's answer → `approval.allowed` or
 * `approval.denied`. Keyed by the call id, like the OTLP path's approval records.
 */
function approvalRecord(a: NonNullable<StreamEvent['detail']['approval']>, ns: bigint, sessionId: string | undefined, scope: string): NormalizedEvent {
  const action = a.decision === undefined ? 'approval.requested' : ALLOWS.has(a.decision) ? 'approval.allowed' : 'approval.denied';
  const message = a.decision === undefined ? 'goose asked the user to confirm a tool call' : `User answered a tool confirmation: ${a.decision}`;
  const r = base(ns, action, 'approval', callEventId(scope, action, a.callId), sessionId, message);
  r.approval = { required: true, ...(a.decision !== undefined ? { decision: a.decision } : {}), ...(a.prompt ? { reason: a.prompt } : {}) };
  if (a.toolName) r.tool = { name: a.toolName };
  r.gen_ai = { tool: { ...(a.toolName ? { name: a.toolName } : {}), call: { id: a.callId, ...(a.arguments !== undefined ? { arguments: a.arguments } : {}) } } };
  if (a.decision === undefined) r.severity = 'low';
  return { record: r, timeUnixNano: ns };
}

// The session: --session, else the id goose's banner printed (none with `goose run -q`).
const base = (ns: bigint, action: string, category: string, id: string, sessionId: string | undefined, message: string): BeaconRecord => baseRecord(ns, action, category, id, 'goose', sessionId, message);
