import type { GenAiFields, NormalizedEvent } from '../../model/record';
import { SPAN_STATUS_ERROR, spanDurationMs, type SpanRecord } from '../../model/span';
import { callEventId } from '../../model/event-id';
import { applyToolClassification } from '../../taxonomy/classify';
import type { SpanProfile } from './profile';
import { numberLike, stringAttr, structuredAttr } from '../attributes';
import { baseRecord, rawSection } from './span-record';

/** One tool call (`execute_tool`) → the shared tool taxonomy, or nothing for goose's internal todo tool. */
export function extractToolSpan(span: SpanRecord, profile: SpanProfile): NormalizedEvent | undefined {
  const a = span.attributes;
  // goose G47 always exports `input` = {"tool","arguments"}; the gated gen_ai.* keys win when present.
  const input = structuredAttr(a.input);
  const inputObj = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const toolName = stringAttr(a, 'gen_ai.tool.name') ?? (typeof inputObj.tool === 'string' ? inputObj.tool : undefined);
  const callId = stringAttr(a, 'gen_ai.tool.call.id');
  const args = a['gen_ai.tool.call.arguments'] !== undefined ? structuredAttr(a['gen_ai.tool.call.arguments']) : inputObj.arguments;
  const result = a['gen_ai.tool.call.result'] !== undefined ? structuredAttr(a['gen_ai.tool.call.result']) : undefined;
  const output = structuredAttr(a.output);
  const errorType = stringAttr(a, 'error.type');
  // goose ≥ 1.50: a PreToolUse policy hook refused the call (or failed with on_failure: block). A policy
  // decision, not a tool failure: the call never ran.
  if (errorType === 'hook_denied' || errorType === 'hook_failed') return hookRefusal(span, errorType, toolName, callId, args, profile);
  // The semantic conventions' process attributes (Copilot CLI sets them on its shell tool's span).
  const processExit = numberLike(a, 'process.exit.code');
  const failed =
    errorType !== undefined ||
    (processExit !== undefined && processExit !== 0) ||
    span.status.code === SPAN_STATUS_ERROR ||
    (isObject(output) && output.status === 'error') ||
    (isObject(result) && result.isError === true) ||
    (isObject(output) && isObject(output.value) && output.value.isError === true);

  const cls = profile.classifyTool(toolName ?? '', args, { failed, withDiff: true });
  if ('consumed' in cls) return undefined;

  const record = baseRecord(span, failed ? 'tool.failed' : cls.action, failed ? 'tool' : cls.category, cls.fidelity, profile.harness);
  const durationMs = spanDurationMs(span);
  applyToolClassification(record, cls);
  if (!toolName) delete record.tool!.name;
  // A process's exit code (Copilot's shell span) is kept though its command line is not exported
  // (content capture off: no arguments): a failed command is failed with its code on this path too.
  if (!record.command && processExit !== undefined) record.command = {};
  if (record.command) {
    // goose writes gen_ai.tool.call.result only on success: a failed shell's exit code is in the
    // (capture-gated) `output`, `{"status":…,"value":{…,"structuredContent":{"exit_code":…}}}`.
    const exit = processExit ?? exitCode(result) ?? exitCode(isObject(output) ? output.value : undefined);
    if (exit !== undefined) record.command.exit_code = exit;
    if (durationMs !== undefined) record.command.duration_ms = durationMs;
  }
  const tool: NonNullable<GenAiFields['tool']> = {};
  if (toolName) tool.name = toolName;
  const toolType = stringAttr(a, 'gen_ai.tool.type');
  if (toolType) tool.type = toolType;
  if (callId || args !== undefined || result !== undefined) {
    tool.call = { ...(callId ? { id: callId } : {}), ...(args !== undefined ? { arguments: args } : {}), ...(result !== undefined ? { result } : {}) };
  }
  record.gen_ai = { operation: { name: 'execute_tool' }, tool };
  // every tool's duration, not only a shell's (issue 24 item 11)
  if (durationMs !== undefined) record.gen_ai.duration_ms = durationMs;
  const conversation = stringAttr(a, 'gen_ai.conversation.id');
  if (conversation) record.gen_ai.conversation = { id: conversation };
  if (failed) {
    record.severity = 'high';
    record.error = { type: errorType ?? (isObject(output) && output.status === 'error' ? 'tool_error' : '_OTHER') };
    record.message = 'Tool call failed';
  } else {
    record.message = cls.message;
  }
  record.raw = rawSection(span);
  // goose's default loop marks no failure on its tool span: only the (capture-gated) output or result
  // says how the call ended. Without them the outcome is unknown, never a claimed success. The opt-in
  // loop's `execute_tool` span sets error.type on every failure, so there no error means success.
  if (!failed && output === undefined && result === undefined && span.name !== 'execute_tool') {
    record.message = `${cls.message}; outcome not exported (goose content capture is off)`;
    record.raw.outcome = 'unknown';
  }

  return { record, timeUnixNano: span.startTimeUnixNano };
}

/**
 * `hook_denied` (a policy hook denied the call) and `hook_failed` (one could not complete and its
 * `on_failure: block` refused the call) → `approval.denied`, never `tool.failed`: the call never ran.
 * The id is the call's, as on the hook path, so goose's PreToolUseResult hook and this span report
 * one denial, whichever arrives first.
 */
function hookRefusal(span: SpanRecord, errorType: 'hook_denied' | 'hook_failed', toolName: string | undefined, callId: string | undefined, args: unknown, profile: SpanProfile): NormalizedEvent {
  const record = baseRecord(span, 'approval.denied', 'approval', 'observed', profile.harness);
  const session = record.session?.id;
  if (session !== undefined && callId) record.event.id = callEventId(session, 'approval.denied', callId);
  const cls = profile.classifyTool(toolName ?? '', args, { failed: true });
  if (!('consumed' in cls)) applyToolClassification(record, cls);
  if (!toolName) delete record.tool?.name;
  record.severity = 'high';
  const reason = errorType === 'hook_denied' ? 'a PreToolUse policy hook denied the tool call' : 'a PreToolUse policy hook could not complete (on_failure: block)';
  record.approval = { required: true, decision: 'deny', reason };
  record.policy = { decision: 'deny', enforcement: 'enforce', reason };
  record.error = { type: errorType };
  record.gen_ai = { operation: { name: 'execute_tool' }, tool: { ...(toolName ? { name: toolName } : {}), ...(callId ? { call: { id: callId } } : {}) } };
  record.message = errorType === 'hook_denied' ? 'Tool call denied by policy hook' : 'Tool call blocked: policy hook could not complete';
  record.raw = rawSection(span);
  return { record, timeUnixNano: span.startTimeUnixNano };
}

/** The shell's exit code, from the tool result's structuredContent (goose's developer shell reports it). */
function exitCode(result: unknown): number | undefined {
  if (!isObject(result)) return undefined;
  const sc = result.structuredContent;
  if (!isObject(sc)) return undefined;
  const code = sc.exit_code;
  return typeof code === 'number' && Number.isInteger(code) ? code : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
