import { contentEventId } from '../model/event-id';
import type { BeaconRecord, CollectionMethod, NormalizedEvent, Severity } from '../model/record';
import type { Attributes } from '../model/span';
import { disjointUsage, type TokenUsage, type UsageSemantics } from '../model/usage';
import { applyToolClassification, type ClassifyOptions, type ToolOutcome } from '../taxonomy/classify';
import { SpanRejected, structuredAttr } from './attributes';
import { otlpRecord } from './otlp-record';
import type { Extraction } from './source';
import type { LogRecord } from '../model/otlp-signals';
import { nowUnixNano } from '../model/time';

/**
 * Event builders every agent's source shares, so that a model call, a tool call, a prompt or a
 * decision looks the same whichever agent reported it and whichever of its records (log record or
 * span) the source chose to read. A source reads its agent's names; these build Beacon's records.
 */
export interface Agent {
  harness: string;
  usage: UsageSemantics;
  classifyTool(name: string, input: unknown, options?: ClassifyOptions): ToolOutcome;
  /**
   * the agent's version from its resource, when `service.version` may not be the agent's (Gemini
   * CLI sends Node's there): `null` records no version rather than the runtime's
   */
  version?(resource: Attributes): string | null;
}

/** Where one observation came from: its time, session, trace context and a key unique to it. */
export interface Observation {
  time: bigint;
  resource: Attributes;
  sessionId?: string;
  traceId?: string;
  spanId?: string;
  /** a canonical string naming this record among all the agent's records (for ids when nothing else identifies it) */
  key: string;
  /** the path it came by, when not OTLP (`poll`: an agent's session store, read by `beacon import`) */
  method?: CollectionMethod;
}

export interface ModelCall {
  model?: string;
  provider?: string;
  responseId?: string;
  finishReasons?: string[];
  usage: TokenUsage;
  durationMs?: number;
  /** the call failed (an API error, a refusal): its kind */
  error?: string;
  operation?: string;
}

export interface ToolCall {
  name: string;
  callId?: string;
  args: unknown;
  success?: boolean;
  exitCode?: number;
  durationMs?: number;
}

function record(agent: Agent, o: Observation, action: string, category: string, id: string, message: string): BeaconRecord {
  const version = agent.version ? agent.version(o.resource) : undefined;
  return otlpRecord({ timeUnixNano: o.time, action, category, id, message }, { harness: agent.harness, resource: o.resource, ...(version !== undefined ? { version } : {}), sessionId: o.sessionId, traceId: o.traceId, spanId: o.spanId, ...(o.method ? { method: o.method } : {}) });
}

/**
 * The texts agents send in place of content their capture setting withholds: Claude Code's
 * `<REDACTED>` (prompt without OTEL_LOG_USER_PROMPTS), Codex's `[REDACTED]` (prompt without
 * `log_user_prompt`). Such a text is the absence of content, never the content itself.
 */
const WITHHELD = new Set(['<redacted>', '[redacted]']);

/** The exported text, or undefined when the agent sent none or only its placeholder for withheld content. */
export function exportedText(text: string | undefined): string | undefined {
  return text === undefined || WITHHELD.has(text.trim().toLowerCase()) ? undefined : text;
}

/** Content the agent withheld (it sent only its placeholder): stored as content not included, with no text. */
function markWithheld(r: BeaconRecord, text: string | undefined): void {
  if (text !== undefined && exportedText(text) === undefined) r.content = { retention: 'metadata', included: false };
}

function ownId(agent: Agent, o: Observation, what: string): string {
  return contentEventId(JSON.stringify([agent.harness, what, o.sessionId ?? '', o.key]));
}

/** One model call → `model.invoked` (or a failed call, severity high), tokens in disjoint buckets by the agent's semantics. */
export function modelCallEvent(agent: Agent, o: Observation, call: ModelCall): NormalizedEvent {
  // A response id names the call across every record that reports it: two channels, one event.
  const id = call.responseId ? contentEventId(JSON.stringify([agent.harness, 'model', o.sessionId ?? '', call.responseId])) : ownId(agent, o, 'model');
  const r = record(agent, o, 'model.invoked', 'model', id, call.error ? 'Model call failed' : 'Model call completed');
  const usage = disjointUsage(call.usage, agent.usage);
  r.gen_ai = {
    operation: { name: call.operation ?? 'chat' },
    ...(call.provider ? { provider: { name: call.provider } } : {}),
    ...(o.sessionId ? { conversation: { id: o.sessionId } } : {}),
    ...(call.model ? { request: { model: call.model } } : {}),
    ...(call.responseId || call.finishReasons ? { response: { ...(call.responseId ? { id: call.responseId } : {}), ...(call.finishReasons ? { finish_reasons: call.finishReasons } : {}) } } : {}),
    ...(usage ? { usage } : {}),
    ...(call.durationMs !== undefined ? { duration_ms: call.durationMs } : {}),
  };
  if (call.model) r.model = call.model;
  if (call.error) {
    r.severity = 'high';
    r.error = { type: call.error };
  }
  // the same call or prompt may be in the agent's session store, imported already (store/log/merge.ts)
  return { record: r, timeUnixNano: o.time, mergeWithStored: true };
}

/**
 * One tool call → the cross-agent taxonomy (`command.executed` with its command line,
 * `file.modified`, `file.read`, `mcp.tool_invoked`, `tool.invoked`; `tool.failed` when it failed).
 * Its id is the record's (every source reads one record per call); the readers join a call's
 * records from all paths by session, harness and call id (store/queries/tool-calls.ts).
 */
export function toolCallEvent(agent: Agent, o: Observation, call: ToolCall): NormalizedEvent | undefined {
  const failed = call.success === false || (call.exitCode !== undefined && call.exitCode !== 0);
  const cls = agent.classifyTool(call.name, call.args, { failed, withDiff: true });
  if ('consumed' in cls) return undefined;
  const action = failed ? 'tool.failed' : cls.action;
  // The record's own identity, never (session, action, call id) alone: a provider that numbers its
  // calls call_1, call_2… anew in every turn reuses ids within a session, and the second call's
  // record would be dropped as a replay of the first (a retried export repeats the key: one event).
  const id = ownId(agent, o, action);
  const r = record(agent, o, action, failed ? 'tool' : cls.category, id, failed ? 'Tool call failed' : cls.message);
  r.event.fidelity = cls.fidelity;
  if (failed) r.severity = 'high';
  applyToolClassification(r, cls);
  if (r.command) {
    if (call.exitCode !== undefined) r.command.exit_code = call.exitCode;
    if (call.durationMs !== undefined) r.command.duration_ms = call.durationMs;
  }
  r.gen_ai = {
    tool: { name: call.name, call: { ...(call.callId ? { id: call.callId } : {}), ...(call.args !== undefined ? { arguments: call.args } : {}) } },
    // every tool's duration, not only a command's (Claude Code's Read, Edit… report one too)
    ...(call.durationMs !== undefined ? { duration_ms: call.durationMs } : {}),
  };
  const ev: NormalizedEvent = { record: r, timeUnixNano: o.time };
  if (o.method === 'poll') linkStoreCallStages(ev, ownId(agent, o, cls.action), ownId(agent, o, 'tool.failed'), failed || call.success !== undefined || call.exitCode !== undefined);
  return ev;
}

/**
 * A call read from an agent's store while the agent was mid-call (its request written, its result
 * not yet) is recorded as far as it is known, under the id its record has once it succeeds; read
 * again with its outcome, a success is that same id (merged: the union), a failure another (its
 * action is in the id). The two ids are linked so the store keeps one row per call, whichever it
 * reads first (store/log/call-join.ts): the failed record replaces the outcome-less one, and an
 * outcome-less record of a call whose failure is stored adds nothing.
 */
function linkStoreCallStages(ev: NormalizedEvent, withoutOutcomeId: string, failedId: string, outcomeKnown: boolean): void {
  if (!outcomeKnown) ev.supersededBy = failedId;
  else if (failedId === ev.record.event.id) ev.supersedes = withoutOutcomeId;
  else return;
  ev.joinCall = true;
}

/** What an agent's export says of a prompt besides its text: its prompt id, its length as the agent counts it. */
export interface PromptFacts {
  id?: string;
  length?: number;
}

/**
 * The user's prompt (its text where the agent exports it). Its id and length are kept even when
 * the text is withheld: the prompt's hook record has the text, and these tell which prompt it is
 * (store/log/prompt-join.ts).
 */
export function promptEvent(agent: Agent, o: Observation, text: string | undefined, facts: PromptFacts = {}): NormalizedEvent {
  const r = record(agent, o, 'prompt.submitted', 'prompt', ownId(agent, o, 'prompt'), 'Prompt submitted to agent');
  const exported = exportedText(text);
  const length = facts.length !== undefined && Number.isSafeInteger(facts.length) && facts.length >= 0 ? facts.length : undefined;
  if (exported || facts.id || length !== undefined) r.prompt = { ...(exported ? { text: exported } : {}), ...(facts.id ? { id: facts.id } : {}), ...(length !== undefined ? { length } : {}) };
  markWithheld(r, text);
  // the same call or prompt may be in the agent's session store, imported already (store/log/merge.ts)
  return { record: r, timeUnixNano: o.time, mergeWithStored: true };
}

/**
 * The agent's answer of a turn (where it exports it), with the turn's prompt id where the record
 * has one: the hook's record of the same turn end is found by it (store/log/turn-join.ts).
 */
export function responseEvent(agent: Agent, o: Observation, text: string | undefined, promptId?: string): NormalizedEvent {
  const r = record(agent, o, 'tool.completed', 'tool', ownId(agent, o, 'response'), 'Agent response completed');
  const exported = exportedText(text);
  if (exported) r.response = { text: exported };
  if (promptId) r.prompt = { id: promptId };
  markWithheld(r, text);
  return { record: r, timeUnixNano: o.time };
}

/** A decision on a tool call (the agent's config, a rule or the user): `approval.allowed` / `approval.denied`. */
export function approvalEvent(agent: Agent, o: Observation, d: { allowed: boolean; by?: string; toolName?: string; callId?: string }): NormalizedEvent {
  const action = d.allowed ? 'approval.allowed' : 'approval.denied';
  // the record's own identity, as a tool call's: call ids repeat within a session
  const id = ownId(agent, o, action);
  const r = record(agent, o, action, 'approval', id, d.allowed ? 'Tool call allowed' : 'Tool call denied');
  const severity: Severity = d.allowed ? 'info' : 'medium';
  r.severity = severity;
  r.approval = { decision: d.allowed ? 'allow' : 'deny', ...(d.by ? { reason: `by ${d.by}` } : {}) };
  if (d.toolName) r.tool = { name: d.toolName };
  if (d.toolName || d.callId) r.gen_ai = { tool: { ...(d.toolName ? { name: d.toolName } : {}), ...(d.callId ? { call: { id: d.callId } } : {}) } };
  return { record: r, timeUnixNano: o.time };
}

/** A log record's time: its event time, else when the SDK observed it (Codex sets only that), else now. */
export function logTime(rec: LogRecord): bigint {
  return rec.timeUnixNano || rec.observedTimeUnixNano || nowUnixNano();
}

/**
 * A log record as an observation. A log record has no identity on the wire: its content (the SDK's
 * observed time included, unique per emission and identical on a retry) stands in.
 */
export function logObservation(rec: LogRecord, sessionId: string | undefined): Observation {
  return {
    time: logTime(rec),
    resource: rec.resource,
    ...(sessionId ? { sessionId } : {}),
    ...(rec.traceId ? { traceId: rec.traceId } : {}),
    ...(rec.spanId ? { spanId: rec.spanId } : {}),
    // Built only when an event needs an id of its own (no response or call id): most records make none.
    get key() {
      return JSON.stringify([rec.observedTimeUnixNano.toString(), rec.timeUnixNano.toString(), rec.traceId, rec.spanId, rec.attributes]);
    },
  };
}

/** A JSON string attribute (tool arguments, parameters) as a value; anything unparsable stays the string. */
export function jsonAttr(attrs: Attributes, key: string): unknown {
  const v = attrs[key];
  return typeof v === 'string' ? structuredAttr(v) : v;
}

/** Reads each log record with `read`; a record with invalid numbers is refused (partial success), the rest kept. */
export function readLogRecords(records: readonly LogRecord[], read: (rec: LogRecord) => NormalizedEvent | undefined): Extraction {
  const out: Extraction = { events: [], rejected: [] };
  for (const rec of records) {
    try {
      const ev = read(rec);
      if (ev) out.events.push(ev);
    } catch (e) {
      if (!(e instanceof SpanRejected)) throw e;
      out.rejected.push({ spanId: rec.spanId, reason: e.message });
    }
  }
  return out;
}

/**
 * The text of a conversation's last message when it is the user's (a new turn's prompt), from the
 * two shapes agents export messages in: the GenAI conventions' `{role, parts: [{type: 'text',
 * content}]}` and the AI SDK's `{role, content: string | [{type: 'text', text}]}`. Undefined when the
 * last message is not the user's (a step answering a tool result resends the same conversation).
 */
export function lastUserText(messages: unknown): string | undefined {
  const list = Array.isArray(messages) ? messages : typeof messages === 'object' && messages !== null && Array.isArray((messages as { messages?: unknown }).messages) ? (messages as { messages: unknown[] }).messages : undefined;
  const last = list?.[list.length - 1] as { role?: unknown; parts?: unknown; content?: unknown } | undefined;
  if (!last || last.role !== 'user') return undefined;
  if (typeof last.content === 'string') return last.content;
  const parts = Array.isArray(last.parts) ? last.parts : Array.isArray(last.content) ? last.content : [];
  const texts = parts.flatMap((p: { type?: unknown; content?: unknown; text?: unknown }) => (p?.type === 'text' ? [typeof p.content === 'string' ? p.content : typeof p.text === 'string' ? p.text : ''] : []));
  return texts.length ? texts.join('\n') : undefined;
}

/** The text of an answer's messages (`{role: 'assistant', parts: [{type: 'text', content}]}`), joined. */
export function assistantText(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const texts = messages.flatMap((m: { role?: unknown; parts?: unknown }) =>
    m?.role === 'assistant' && Array.isArray(m.parts) ? m.parts.flatMap((p: { type?: unknown; content?: unknown }) => (p?.type === 'text' && typeof p.content === 'string' ? [p.content] : [])) : [],
  );
  return texts.length ? texts.join('\n') : undefined;
}
