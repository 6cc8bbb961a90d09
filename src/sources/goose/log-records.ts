import { callEventId, contentEventId } from '../../model/event-id';
import type { LogRecord } from '../../model/otlp-signals';
import type { BeaconRecord, NormalizedEvent, SecurityFields, Severity } from '../../model/record';
import { applyToolClassification } from '../../taxonomy/classify';
import { classifyGooseTool } from './tools';
import { boolAttr, numberAttr, stringAttr, structuredAttr } from '../attributes';
import { otlpRecord } from '../otlp-record';
import { logTime } from '../agent-events';

/**
 * goose's security and approval log records → Beacon events. goose's tool-inspection layer
 * (Security, Egress, Adversary inspectors, then the permission step) logs its findings and the
 * user's answers as tracing events, which its OpenTelemetry appender exports on /v1/logs with a
 * `security.event_type` attribute. Every other log record is counted by the receiver and dropped:
 * ordinary log text is not telemetry Beacon keeps.
 *
 * | goose record (security.event_type, action)     | Beacon action          | severity              |
 * |------------------------------------------------|------------------------|-----------------------|
 * | prompt_injection_scan BLOCK / LOG              | security.finding       | high / medium         |
 * | prompt_injection_scan ALLOW                    | security.scan_passed   | info                  |
 * | adversary_detection BLOCK                      | security.finding       | high                  |
 * | adversary_detection ALLOW (reviewer error)     | security.scan_failed   | medium                |
 * | adversary_detection ALLOW (debug level only)   | security.scan_passed   | info                  |
 * | egress                                         | network.egress         | medium outbound, else low |
 * | inspection_result BLOCK (any inspector)        | approval.denied        | high                  |
 * | inspection_result ALERT                        | approval.requested     | medium                |
 * | approval_request (opt-in loop)                 | approval.requested     | medium                |
 * | user_decision AllowOnce / AlwaysAllow          | approval.allowed       | medium                |
 * | user_decision DenyOnce / AlwaysDeny / Cancel   | approval.denied        | low                   |
 *
 * An `inspection_result` ALLOW makes no event: the egress one is what names the tool call an egress
 * record belongs to (goose's egress record carries no call id). The scan without an action
 * ("analysis complete") repeats the per-call records and makes none either.
 */
export interface LogExtraction {
  events: NormalizedEvent[];
  /** records with a `security.event_type` that made (or joined) an event */
  security: number;
}

const USER_ALLOWS = new Set(['AllowOnce', 'AlwaysAllow']);

export function extractLogEvents(records: readonly LogRecord[]): LogExtraction {
  const out: LogExtraction = { events: [], security: 0 };
  const joins = joinIndex(records);
  for (const rec of records) {
    const type = stringAttr(rec.attributes, 'security.event_type');
    if (!type) continue;
    const ev = securityEvent(rec, type, joins);
    out.security++;
    if (ev) out.events.push(ev);
  }
  return out;
}

interface Joins {
  /** egress inspection results: span → [reason text, tool call id] */
  egress: Map<string, { reason: string; callId: string }[]>;
  /** scan findings by finding id: the tool they flagged */
  findings: Map<string, { toolName?: string; callId?: string }>;
}

function joinIndex(records: readonly LogRecord[]): Joins {
  const joins: Joins = { egress: new Map(), findings: new Map() };
  for (const rec of records) {
    const a = rec.attributes;
    const type = stringAttr(a, 'security.event_type');
    if (type === 'inspection_result' && stringAttr(a, 'inspector.name') === 'egress') {
      const callId = stringAttr(a, 'tool.request_id');
      const reason = stringAttr(a, 'inspector.reason');
      if (!callId || !reason) continue;
      const key = turnKey(rec);
      const list = joins.egress.get(key) ?? [];
      list.push({ reason, callId });
      joins.egress.set(key, list);
    } else if (type === 'prompt_injection_scan') {
      const finding = stringAttr(a, 'security.finding_id');
      if (finding) joins.findings.set(finding, { toolName: stringAttr(a, 'tool.name'), callId: stringAttr(a, 'tool.request_id') });
    }
  }
  return joins;
}

/**
 * The call whose egress inspection listed this destination: goose joins a call's new destinations
 * with ", " after "Egress destinations detected: ". An exact entry wins over a mere substring (one
 * URL can be the prefix of another call's).
 */
function egressCall(results: { reason: string; callId: string }[], destination: string): { callId: string } | undefined {
  const listed = (reason: string) => reason.replace(/^Egress destinations detected: /, '').split(', ');
  return results.find((j) => listed(j.reason).includes(destination)) ?? results.find((j) => j.reason.includes(destination));
}

/** Records of one turn share goose's `reply_stream` span; without span context, the session stands in. */
function turnKey(rec: LogRecord): string {
  return rec.spanId ? `${rec.traceId}/${rec.spanId}` : `session/${stringAttr(rec.attributes, 'session.id') ?? ''}`;
}

function securityEvent(rec: LogRecord, type: string, joins: Joins): NormalizedEvent | undefined {
  const a = rec.attributes;
  const action = stringAttr(a, 'security.action')?.toUpperCase();
  const callId = stringAttr(a, 'tool.request_id');
  switch (type) {
    case 'prompt_injection_scan': {
      if (!action) return undefined; // "analysis complete": a summary of the per-call records
      if (action === 'ALLOW') return event(rec, 'security.scan_passed', 'security', 'info', 'Prompt injection scan passed', { callId });
      const ev = event(rec, 'security.finding', 'security', action === 'BLOCK' ? 'high' : 'medium',
        action === 'BLOCK' ? 'Prompt injection finding above threshold: goose asks the user before the call runs' : 'Prompt injection finding below threshold: logged only',
        { callId });
      flaggedCall(ev.record, stringAttr(a, 'tool.call_json'));
      return ev;
    }
    case 'adversary_detection': {
      if (action === 'BLOCK') return event(rec, 'security.finding', 'security', 'high', 'Adversary review blocked the tool call', { callId });
      const failed = numberAttr(a, 'security.confidence') === 0 || /error/i.test(String(rec.body ?? ''));
      return failed
        ? event(rec, 'security.scan_failed', 'security', 'medium', 'Adversary review failed; goose allowed the tool call (fail-open)', { callId })
        : event(rec, 'security.scan_passed', 'security', 'info', 'Adversary review allowed the tool call', { callId });
    }
    case 'egress': {
      const destination = stringAttr(a, 'network.destination');
      const direction = stringAttr(a, 'network.direction');
      const joined = destination ? egressCall(joins.egress.get(turnKey(rec)) ?? [], destination) : undefined;
      const ev = event(rec, 'network.egress', 'network', direction === 'outbound' ? 'medium' : 'low',
        `Network egress: ${[stringAttr(a, 'network.egress_kind'), direction, stringAttr(a, 'network.domain')].filter(Boolean).join(' ')}`,
        { callId: joined?.callId });
      ev.record.network = {
        ...(destination ? { destination } : {}),
        ...optional('domain', stringAttr(a, 'network.domain')),
        ...optional('egress_kind', stringAttr(a, 'network.egress_kind')),
        ...optional('direction', direction),
      };
      return ev;
    }
    case 'inspection_result': {
      if (!callId) return undefined;
      const inspector = stringAttr(a, 'inspector.name') ?? 'unknown';
      const reason = stringAttr(a, 'inspector.reason');
      const flagged = findingOf(a) ? joins.findings.get(findingOf(a)!) : undefined;
      if (action === 'BLOCK') {
        const ev = event(rec, 'approval.denied', 'approval', 'high', `Tool call refused by goose's ${inspector} inspector`,
          { callId, toolName: flagged?.toolName, id: callEventId(sessionOf(rec), 'approval.denied', callId) });
        ev.record.approval = { required: false, decision: 'deny', ...optional('reason', reason) };
        ev.record.policy = { name: `goose.${inspector}_inspector`, decision: 'deny', enforcement: 'enforce', ...optional('reason', reason) };
        return ev;
      }
      if (action === 'ALERT') return approvalRequested(rec, callId, flagged?.toolName, reason);
      return undefined; // ALLOW: an egress one joins its records above; the others say nothing new
    }
    case 'approval_request':
      if (!callId) return undefined;
      return approvalRequested(rec, callId, joins.findings.get(findingOf(a) ?? '')?.toolName, undefined);
    case 'user_decision': {
      if (!callId) return undefined;
      const decision = stringAttr(a, 'user.decision') ?? '';
      const allowed = USER_ALLOWS.has(decision) || (decision === '' && action === 'ALLOW');
      const actionName = allowed ? 'approval.allowed' : 'approval.denied';
      const ev = event(rec, actionName, 'approval', allowed ? 'medium' : 'low',
        allowed ? 'User allowed a tool call goose flagged' : 'User refused a tool call goose flagged',
        { callId, toolName: joins.findings.get(findingOf(a) ?? '')?.toolName, id: callEventId(sessionOf(rec), actionName, callId) });
      ev.record.approval = { required: true, decision: snakeCase(decision) || (allowed ? 'allow' : 'deny') };
      return ev;
    }
    default:
      return undefined;
  }
}

/**
 * One approval request per call, whichever record says it: the security inspector's ALERT (both
 * loops) and the opt-in loop's `approval_request` get the same id, so the second adds nothing.
 */
function approvalRequested(rec: LogRecord, callId: string, toolName: string | undefined, reason: string | undefined): NormalizedEvent {
  const ev = event(rec, 'approval.requested', 'approval', 'medium', 'goose asked the user to approve a flagged tool call',
    { callId, toolName, id: callEventId(sessionOf(rec), 'approval.requested', callId) });
  ev.record.approval = { required: true, ...optional('reason', reason) };
  return ev;
}

interface EventOptions {
  callId?: string;
  toolName?: string;
  /** an id shared by every record that says the same thing; otherwise the log record's own identity */
  id?: string;
}

function event(rec: LogRecord, action: string, category: string, severity: Severity, message: string, o: EventOptions): NormalizedEvent {
  const a = rec.attributes;
  // goose's appender never sets the event time: the SDK's observed time is when goose logged it.
  const time = logTime(rec);
  const record = otlpRecord(
    { timeUnixNano: time, action, category, message, id: o.id ?? logRecordId(rec) },
    { harness: 'goose', resource: rec.resource, sessionId: stringAttr(a, 'session.id'), traceId: rec.traceId, spanId: rec.spanId },
  );
  record.severity = severity;
  const toolName = stringAttr(a, 'tool.name') ?? o.toolName;
  if (toolName) record.tool = { name: toolName };
  if (toolName || o.callId) record.gen_ai = { tool: { ...optional('name', toolName), ...(o.callId ? { call: { id: o.callId } } : {}) } };
  record.security = securityFields(a);
  record.raw = { otel_signal: 'logs', scope: rec.scope.name, ...optional('event_name', rec.eventName), ...optional('severity_text', rec.severityText) };
  return { record, timeUnixNano: time };
}

function securityFields(a: LogRecord['attributes']): SecurityFields {
  const f: SecurityFields = { event_type: stringAttr(a, 'security.event_type')! };
  const action = stringAttr(a, 'security.action');
  if (action) f.action = action;
  const confidence = numberAttr(a, 'security.confidence');
  if (confidence !== undefined) f.confidence = round(confidence);
  const threshold = numberAttr(a, 'security.threshold');
  if (threshold !== undefined) f.threshold = round(threshold);
  const above = boolAttr(a, 'security.above_threshold');
  if (above !== undefined) f.above_threshold = above;
  const threat = stringAttr(a, 'security.threat_type');
  if (threat) f.threat_type = threat;
  const finding = findingOf(a);
  if (finding) f.finding_id = finding;
  const explanation = stringAttr(a, 'security.explanation');
  if (explanation) f.explanation = explanation;
  const inspector = stringAttr(a, 'inspector.name');
  if (inspector) f.inspector = inspector;
  return f;
}

/** goose logs an inspection result's finding id as the Debug form of an Option: `Some("SEC-…")` or `None`. */
function findingOf(a: LogRecord['attributes']): string | undefined {
  const v = stringAttr(a, 'security.finding_id');
  if (!v || v === 'None') return undefined;
  const m = /^Some\("(.*)"\)$/.exec(v);
  return m ? m[1] : v;
}

/** The flagged call (`tool.call_json` = {"name","arguments"}) in the shared taxonomy's fields: what was flagged. */
function flaggedCall(r: BeaconRecord, callJson: string | undefined): void {
  if (!callJson) return;
  const call = structuredAttr(callJson);
  if (typeof call !== 'object' || call === null || Array.isArray(call)) return;
  const { name, arguments: args } = call as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') return;
  const cls = classifyGooseTool(name, args);
  if (!('consumed' in cls)) applyToolClassification(r, cls);
  r.gen_ai = { tool: { ...r.gen_ai?.tool, name, call: { ...r.gen_ai?.tool?.call, ...(args !== undefined ? { arguments: args } : {}) } } };
}

function sessionOf(rec: LogRecord): string {
  return stringAttr(rec.attributes, 'session.id') ?? '';
}

/** A log record has no id of its own; its content (the observed time included) is the same on every retry. */
function logRecordId(rec: LogRecord): string {
  return contentEventId(JSON.stringify(['otlp-log', rec.traceId, rec.spanId, rec.timeUnixNano.toString(), rec.observedTimeUnixNano.toString(), rec.scope.name, rec.eventName, rec.body, rec.attributes]));
}

/** goose's Permission variants as its own serde writes them: AllowOnce → allow_once. */
function snakeCase(s: string): string {
  return s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** goose widens f32 to double (0.95 arrives as 0.949999988079071): six digits say what goose meant. */
function round(n: number): number {
  return Number(n.toPrecision(6));
}

function optional<K extends string>(key: K, v: string | undefined): { [P in K]?: string } {
  return (v ? { [key]: v } : {}) as { [P in K]?: string };
}
