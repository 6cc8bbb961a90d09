import type { GenAiFields, NormalizedEvent } from '../model/record';
import { SPAN_STATUS_ERROR, type SpanRecord } from '../model/span';
import { applyToolClassification, classifyGooseTool } from '../taxonomy/classify';
import { stringAttr, structuredAttr } from './attributes';
import { baseRecord, rawSection } from './base-record';

/** One tool call (`execute_tool`) → the shared tool taxonomy, or nothing for goose's internal todo tool. */
export function extractToolSpan(span: SpanRecord): NormalizedEvent | undefined {
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
  const failed =
    errorType !== undefined ||
    span.status.code === SPAN_STATUS_ERROR ||
    (isObject(output) && output.status === 'error') ||
    (isObject(result) && result.isError === true);

  const cls = classifyGooseTool(toolName ?? '', args, { failed, withDiff: true });
  if ('consumed' in cls) return undefined;

  const record = baseRecord(span, failed ? 'tool.failed' : cls.action, failed ? 'tool' : cls.category, cls.fidelity);
  applyToolClassification(record, cls);
  if (!toolName) delete record.tool!.name;
  if (record.command) {
    const exit = exitCode(result);
    const durationMs = Number((span.endTimeUnixNano - span.startTimeUnixNano) / 1_000_000n);
    if (exit !== undefined) record.command.exit_code = exit;
    if (durationMs >= 0) record.command.duration_ms = durationMs;
  }
  const tool: NonNullable<GenAiFields['tool']> = {};
  if (toolName) tool.name = toolName;
  const toolType = stringAttr(a, 'gen_ai.tool.type');
  if (toolType) tool.type = toolType;
  if (callId || args !== undefined || result !== undefined) {
    tool.call = { ...(callId ? { id: callId } : {}), ...(args !== undefined ? { arguments: args } : {}), ...(result !== undefined ? { result } : {}) };
  }
  record.gen_ai = { operation: { name: 'execute_tool' }, tool };
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
