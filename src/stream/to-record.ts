import { userInfo } from 'node:os';
import { endpointInfo } from '../model/endpoint';
import { callEventId, contentEventId, freshEventId } from '../model/event-id';
import { SCHEMA_VERSION, type BeaconRecord, type ContentField, type StoredEvent } from '../model/record';
import { formatTimestamp } from '../model/time';
import { classifyGooseTool } from '../taxonomy/classify';
import type { StreamEvent } from './harness-event';

export interface StreamRecord extends StoredEvent {
  contentField?: ContentField;
}

/**
 * A harness event (and what the stream said around it) → the Beacon record stored for it, with
 * `harness.collection_method = stream`. Tool calls use the taxonomy shared with the hook and OTLP
 * paths, and carry goose's tool call id, which joins them to those paths' events.
 */
export function streamRecord(ev: StreamEvent, sessionId?: string): StreamRecord | undefined {
  const d = ev.detail;
  const h = ev.harness;
  const iso = h?.timestamp ?? new Date().toISOString();
  const ns = BigInt(Date.parse(iso)) * 1_000_000n;

  if (h === null) {
    if (!d.usage) return undefined;
    const u = d.usage;
    const r = base(ns, 'usage.reported', 'usage', freshEventId(), sessionId, 'Session usage reported by goose');
    // goose reports session-cumulative totals; input includes both cache buckets, stored disjoint.
    const input = u.inputTokens !== undefined ? Math.max(0, u.inputTokens - (u.cacheReadTokens ?? 0) - (u.cacheWriteTokens ?? 0)) : undefined;
    r.gen_ai = {
      usage: {
        ...(input !== undefined ? { input_tokens: input } : {}),
        ...(u.outputTokens !== undefined ? { output_tokens: u.outputTokens } : {}),
        ...(u.cacheReadTokens !== undefined ? { cache_read: { input_tokens: u.cacheReadTokens } } : {}),
        ...(u.cacheWriteTokens !== undefined ? { cache_creation: { input_tokens: u.cacheWriteTokens } } : {}),
        ...(u.costUsd !== undefined ? { cost_usd: u.costUsd } : {}),
      },
      ...(d.provider ? { provider: { name: d.provider } } : {}),
    };
    if (d.model) r.model = d.model;
    r.raw = { stream_record: 'complete', usage_scope: 'session_cumulative', cost_source: u.costUsd !== undefined ? 'reported' : undefined, total_tokens: u.totalTokens, input_tokens: u.inputTokens };
    return { record: r, timeUnixNano: ns };
  }

  switch (h.type) {
    case 'agent':
    case 'reasoning': {
      const action = h.type === 'agent' ? 'agent.message' : 'agent.reasoning';
      const r = base(ns, action, 'agent', contentEventId(JSON.stringify(['stream', h.type, d.messageId ?? '', h.message])), sessionId, h.type === 'agent' ? 'Agent message' : 'Agent reasoning');
      if (d.model) r.model = d.model;
      if (d.provider) r.gen_ai = { provider: { name: d.provider } };
      if (h.type === 'reasoning') {
        r.reasoning = { text: h.message };
        return { record: r, timeUnixNano: ns, contentField: 'reasoning.text' };
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
      if (d.tool) return toolRecord(ev, ns, sessionId);
      if (h.type === 'unknown') {
        const r = base(ns, 'agent.unknown', 'agent', freshEventId(), sessionId, 'Unrecognized goose stream record');
        r.raw = { stream: h.raw };
        return { record: r, timeUnixNano: ns };
      }
      return undefined;
  }
}

function toolRecord(ev: StreamEvent, ns: bigint, sessionId?: string): StreamRecord | undefined {
  const t = ev.detail.tool!;
  const cls = classifyGooseTool(t.name, t.arguments, { failed: t.failed, withDiff: t.answered && !t.failed });
  if ('consumed' in cls) return undefined;
  const action = t.failed ? 'tool.failed' : cls.action;
  const r = base(ns, action, t.failed ? 'tool' : cls.category, callEventId(sessionId ?? 'stream', action, t.callId), sessionId, t.failed ? 'Tool call failed' : t.answered ? cls.message : 'Tool call not answered before the stream ended');
  r.event.fidelity = cls.fidelity;
  if (t.failed) r.severity = 'high';
  r.tool = cls.tool;
  if (cls.file) r.file = { ...cls.file };
  if (cls.mcp) r.mcp = cls.mcp;
  if (cls.command) r.command = { ...cls.command, ...(t.exitCode !== undefined ? { exit_code: t.exitCode } : {}) };
  r.gen_ai = { tool: { name: t.name, call: { id: t.callId, arguments: t.arguments } } };
  if (ev.detail.model) r.model = ev.detail.model;
  if (ev.harness?.type) r.raw = { harness_event: ev.harness.type, answered: t.answered };
  const contentField: ContentField | undefined = r.file?.diff ? 'file.diff' : r.command?.command ? 'command.command' : undefined;
  return { record: r, timeUnixNano: ns, ...(contentField ? { contentField } : {}) };
}

function base(ns: bigint, action: string, category: string, id: string, sessionId: string | undefined, message: string): BeaconRecord {
  const r: BeaconRecord = {
    timestamp: formatTimestamp(ns),
    vendor: 'beacon',
    product: 'endpoint-agent',
    schema_version: SCHEMA_VERSION,
    event: { kind: 'agent_runtime', action, category, id, fidelity: 'observed' },
    severity: 'info',
    endpoint: { ...endpointInfo() },
    user: { name: safeUser() },
    harness: { name: 'goose', collection_method: 'stream' },
    message,
  };
  // goose prints no session id: events carry one only when the user passes --session.
  if (sessionId !== undefined) r.session = { id: sessionId };
  return r;
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}
