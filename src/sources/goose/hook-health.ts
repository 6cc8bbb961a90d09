import { spanEventId } from '../../model/event-id';
import type { NormalizedEvent } from '../../model/record';
import type { SpanRecord } from '../../model/span';
import { stringAttr } from '../attributes';
import { otlpRecord } from '../otlp-record';
import { HOOK_FAILED } from '../hook-adapter';
import { BEACON_GOOSE_PLUGIN } from './plugin-name';

export { BEACON_GOOSE_PLUGIN };

const HOOK_ERRORS = new Set(['hook_exit', 'hook_execution_error']);

/**
 * goose's `execute_hook` span (hooks/mod.rs `run_action`): `error.type` is `hook_exit` (the hook
 * exited non-zero) or `hook_execution_error` (it could not run, or timed out), and
 * `goose.hook.plugin` names the plugin. When that plugin is Beacon's, Beacon's own hook failed inside
 * goose: a PreToolUse check that failed open, or an observation that was never recorded. One
 * `hook.failed` record (severity medium) with the cause; other plugins' hooks are not Beacon's to report.
 */
export function hookFailureFromSpan(span: SpanRecord): NormalizedEvent | undefined {
  const a = span.attributes;
  const cause = stringAttr(a, 'error.type');
  if (stringAttr(a, 'gen_ai.operation.name') !== 'execute_hook' || !cause || !HOOK_ERRORS.has(cause)) return undefined;
  if (stringAttr(a, 'goose.hook.plugin') !== BEACON_GOOSE_PLUGIN) return undefined;
  const hookEvent = stringAttr(a, 'goose.hook.event');
  const record = otlpRecord(
    {
      timeUnixNano: span.startTimeUnixNano,
      action: HOOK_FAILED,
      category: 'hook',
      id: spanEventId(span.traceId, span.spanId),
      message: `Beacon's ${hookEvent ?? ''} hook failed inside goose (${cause === 'hook_exit' ? 'it exited non-zero' : 'it could not run or timed out'})`.replace('  ', ' '),
    },
    { harness: 'goose', resource: span.resource, sessionId: stringAttr(a, 'session.id'), traceId: span.traceId, spanId: span.spanId, parentSpanId: span.parentSpanId },
  );
  record.severity = 'medium';
  record.error = { type: cause };
  record.raw = { otel_signal: 'traces', span_name: span.name, cause, plugin: BEACON_GOOSE_PLUGIN, ...(hookEvent ? { hook_event: hookEvent } : {}) };
  return { record, timeUnixNano: span.startTimeUnixNano };
}
