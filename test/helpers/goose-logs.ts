import { execFileSync } from 'node:child_process';
import { hex } from './goose-spans';
import { repoRoot } from './paths';

/**
 * goose's OTLP log records, built as its OpenTelemetry tracing appender emits them
 * (docs: goose-logs-and-metrics-facts.md §1–2; goose 1.47 `security/mod.rs`, `tool_inspection.rs`,
 * `egress_inspector.rs`, `adversary_inspector.rs`, `agents/tool_execution.rs`,
 * `state_machine/ops_tool_approval.rs`):
 * - body = the event's message; every other field an attribute named as in the macro (dots kept);
 *   `%x` fields strings, f32 fields widened to double, `usize`/`i32` ints;
 * - span fields first, from the root span down: in the default loop `reply` (session.id) then
 *   `reply_stream` (session.id, session.user, session.host, session.agent_type) — `session.id` twice;
 * - `time_unix_nano` unset, `observed_time_unix_nano` set; the turn's trace and span id, flags 1;
 * - the scope is the event's Rust module path; `event_name` = `event <file>:<line>`.
 * Encoded by protoc (text format → binary), independent of Beacon's decoder.
 */
export type Value = string | number | boolean | { double: number };

export interface GooseLog {
  scope: string;
  level: 'INFO' | 'WARN' | 'DEBUG';
  file: string;
  line: number;
  body: string;
  fields: [string, Value][];
  /** span context of the turn (default: the session's reply_stream span) */
  traceId?: string;
  spanId?: string;
  /** default: the default loop's two spans; 'none' for an event outside any span */
  spans?: 'default' | 'state-machine' | 'none';
  observed: bigint;
}

export interface Turn {
  sessionId: string;
  traceId: string;
  spanId: string;
  /** observed times advance from here */
  t0: bigint;
}

const f32 = (x: number) => ({ double: Math.fround(x) });

let clock = 0n;
function at(turn: Turn): bigint {
  clock += 1_000_000n;
  return turn.t0 + clock;
}

function base(turn: Turn, scope: string, level: GooseLog['level'], file: string, line: number, body: string, fields: [string, Value][], spans: GooseLog['spans'] = 'default'): GooseLog & { sessionId: string } {
  return { scope, level, file, line, body, fields, traceId: turn.traceId, spanId: turn.spanId, spans, observed: at(turn), sessionId: turn.sessionId };
}

/** security/mod.rs:185 — a finding above (BLOCK) or below (LOG) the threshold. */
export function promptInjectionFinding(turn: Turn, o: { callId: string; findingId: string; command: string; confidence: number; threshold?: number }) {
  const threshold = o.threshold ?? 0.8;
  const above = o.confidence > threshold;
  return base(turn, 'goose::security', 'WARN', 'crates/goose/src/security/mod.rs', 185, above ? 'prompt injection scan: finding above threshold' : 'prompt injection scan: finding below threshold', [
    ['monotonic_counter.goose.prompt_injection_finding', 1],
    ['security.event_type', 'prompt_injection_scan'],
    ['security.action', above ? 'BLOCK' : 'LOG'],
    ['security.confidence', f32(o.confidence)],
    ['security.threshold', f32(threshold)],
    ['security.above_threshold', above],
    ['security.threat_type', 'command_injection'],
    ['security.finding_id', o.findingId],
    ['security.explanation', `Pattern-based detection: Remote script execution | Command: ${o.command}`],
    ['tool.name', 'shell'],
    ['tool.request_id', o.callId],
    ['tool.call_json', JSON.stringify({ name: 'shell', arguments: { command: o.command } })],
  ]);
}

/** security/mod.rs:219 — the scan passed. */
export function promptInjectionPassed(turn: Turn, o: { callId: string; command: string }) {
  return base(turn, 'goose::security', 'INFO', 'crates/goose/src/security/mod.rs', 219, 'prompt injection scan: tool call passed', [
    ['monotonic_counter.goose.prompt_injection_tool_call_passed', 1],
    ['security.event_type', 'prompt_injection_scan'],
    ['security.action', 'ALLOW'],
    ['security.confidence', f32(0)],
    ['security.threshold', f32(0.8)],
    ['security.above_threshold', false],
    ['security.threat_type', 'command_injection'],
    ['tool.name', 'shell'],
    ['tool.request_id', o.callId],
    ['tool.call_json', JSON.stringify({ name: 'shell', arguments: { command: o.command } })],
  ]);
}

/** security/mod.rs:236 — the batch summary, no security.event_type. */
export function analysisComplete(turn: Turn, issues: number) {
  return base(turn, 'goose::security', 'INFO', 'crates/goose/src/security/mod.rs', 236, 'Prompt injection detection: Security analysis complete', [
    ['monotonic_counter.goose.prompt_injection_analysis_performed', 1],
    ['security_issues_found', issues],
  ]);
}

/** egress_inspector.rs:355 — one per new destination of a shell or web tool. */
export function egress(turn: Turn, o: { destination: string; domain: string; kind: string; direction: string; tool?: string }) {
  return base(turn, 'goose::security::egress_inspector', 'INFO', 'crates/goose/src/security/egress_inspector.rs', 355, 'network egress detected', [
    ['security.event_type', 'egress'],
    ['security.action', 'LOG'],
    ['security.threat_type', 'data_exfiltration'],
    ['network.destination', o.destination],
    ['network.domain', o.domain],
    ['network.egress_kind', o.kind],
    ['network.direction', o.direction],
    ['tool.name', o.tool ?? 'shell'],
  ]);
}

/** tool_inspection.rs:202 — an inspector's verdict on one call (the only record tying egress to a call id). */
export function inspectionResult(turn: Turn, o: { callId: string; inspector: string; action: 'BLOCK' | 'ALERT' | 'ALLOW'; reason: string; findingId?: string; confidence?: number }) {
  return base(turn, 'goose::tool_inspection', 'INFO', 'crates/goose/src/tool_inspection.rs', 202, 'inspection result applied', [
    ['security.event_type', 'inspection_result'],
    ['security.action', o.action],
    ['security.confidence', f32(o.confidence ?? 0)],
    ['security.finding_id', o.findingId ? `Some("${o.findingId}")` : 'None'],
    ['tool.request_id', o.callId],
    ['inspector.name', o.inspector],
    ['inspector.reason', o.reason],
  ]);
}

/** adversary_inspector.rs:452 (BLOCK) / :471 (reviewer error, fail-open). */
export function adversary(turn: Turn, o: { callId: string; action: 'BLOCK' | 'ERROR'; explanation: string }) {
  const block = o.action === 'BLOCK';
  return base(turn, 'goose::security::adversary_inspector', 'WARN', 'crates/goose/src/security/adversary_inspector.rs', block ? 452 : 471, block ? 'adversary review: BLOCK' : 'adversary review: error (fail-open)', [
    ['security.event_type', 'adversary_detection'],
    ['security.action', block ? 'BLOCK' : 'ALLOW'],
    ['security.confidence', f32(block ? 1 : 0)],
    ['security.explanation', block ? o.explanation : `error (fail-open): ${o.explanation}`],
    ['tool.name', 'shell'],
    ['tool.request_id', o.callId],
  ]);
}

/** agents/tool_execution.rs:186 — the user's answer (default loop only), `user.decision` = Debug of Permission. */
export function userDecision(turn: Turn, o: { callId: string; findingId: string; decision: 'AllowOnce' | 'AlwaysAllow' | 'DenyOnce' | 'AlwaysDeny' | 'Cancel' }) {
  const allow = o.decision === 'AllowOnce' || o.decision === 'AlwaysAllow';
  return base(turn, 'goose::agents::tool_execution', 'INFO', 'crates/goose/src/agents/tool_execution.rs', 191, 'security finding: user decision', [
    ['monotonic_counter.goose.prompt_injection_user_decisions', 1],
    ['security.event_type', 'user_decision'],
    ['security.action', allow ? 'ALLOW' : 'BLOCK'],
    ['security.finding_id', o.findingId],
    ['tool.request_id', o.callId],
    ['user.decision', o.decision],
  ]);
}

/** state_machine/ops_tool_approval.rs:138 — the opt-in loop asks (no user_decision record there). */
export function approvalRequest(turn: Turn, o: { callId: string; findingId: string }) {
  return base(turn, 'goose::agents::state_machine::ops_tool_approval', 'INFO', 'crates/goose/src/agents/state_machine/ops_tool_approval.rs', 138, 'security finding: approval requested', [
    ['monotonic_counter.goose.prompt_injection_user_decisions', 1],
    ['security.event_type', 'approval_request'],
    ['security.finding_id', o.findingId],
    ['tool.request_id', o.callId],
  ], 'state-machine');
}

/** goose-cli session/mod.rs:2702 — an ordinary record outside any span (no security.event_type). */
export function toolCallCompleted(turn: Turn, tool: string) {
  return base(turn, 'goose_cli::session', 'INFO', 'crates/goose-cli/src/session/mod.rs', 2702, 'Tool call completed', [
    ['monotonic_counter.goose.tool_completions', 1],
    ['tool_name', tool],
    ['result', 'success'],
  ], 'none');
}

const RESOURCE: [string, string][] = [
  ['service.name', 'goose'], ['service.version', '1.47.0'], ['service.namespace', 'goose'], ['host.name', 'devbox'], ['user.name', 'alice'],
  ['telemetry.sdk.language', 'rust'], ['telemetry.sdk.name', 'opentelemetry'], ['telemetry.sdk.version', '0.32.0'],
];

const esc = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
const bytes = (hex: string) => `"${hex.replace(/../g, (b) => `\\x${b}`)}"`;

function value(v: Value): string {
  if (typeof v === 'string') return `string_value: ${esc(v)}`;
  if (typeof v === 'boolean') return `bool_value: ${v}`;
  if (typeof v === 'number') return `int_value: ${v}`;
  return `double_value: ${v.double}`;
}

const kv = ([k, v]: [string, Value]) => `attributes { key: ${esc(k)} value { ${value(v)} } }`;

function spanFields(l: GooseLog & { sessionId: string }): [string, Value][] {
  if (l.spans === 'none') return [];
  if (l.spans === 'state-machine') return [['session.id', l.sessionId]];
  return [['session.id', l.sessionId], ['session.id', l.sessionId], ['session.user', 'alice'], ['session.host', 'devbox'], ['session.agent_type', 'goose']];
}

const SEVERITY = { DEBUG: 5, INFO: 9, WARN: 13 };

/** The protobuf text format of one ExportLogsServiceRequest: records grouped by scope, as the exporter does. */
export function logsTextFormat(logs: (GooseLog & { sessionId: string })[]): string {
  const scopes = new Map<string, typeof logs>();
  for (const l of logs) scopes.set(l.scope, [...(scopes.get(l.scope) ?? []), l]);
  const out = ['resource_logs {', `  resource { ${RESOURCE.map(kv).join(' ')} }`];
  for (const [scope, list] of scopes) {
    out.push(`  scope_logs {`, `    scope { name: ${esc(scope)} }`);
    for (const l of list) {
      const ctx = l.spans === 'none' ? '' : `trace_id: ${bytes(l.traceId!)} span_id: ${bytes(l.spanId!)} flags: 1`;
      out.push(
        `    log_records { observed_time_unix_nano: ${l.observed} severity_number: ${SEVERITY[l.level]} severity_text: ${esc(l.level)} body { string_value: ${esc(l.body)} } ${[...spanFields(l), ...l.fields].map(kv).join(' ')} ${ctx} event_name: ${esc(`event ${l.file}:${l.line}`)} }`,
      );
    }
    out.push('  }');
  }
  out.push('}');
  return out.join('\n');
}

/** protoc --encode: the binary ExportLogsServiceRequest goose would POST. */
export function encodeLogs(logs: (GooseLog & { sessionId: string })[]): Buffer {
  return execFileSync('protoc', ['-I', 'proto', '--encode=beacon.otlp.ExportLogsServiceRequest', 'proto/otlp.proto'], { cwd: repoRoot(), input: logsTextFormat(logs) });
}

export function newTurn(sessionId: string, t0 = 1787301000000000000n): Turn {
  return { sessionId, traceId: hex(16), spanId: hex(8), t0 };
}
