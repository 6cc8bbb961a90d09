import type Database from 'better-sqlite3';
import type { Usage } from '../../model/record';
import { queryStreamReports } from './usage';
import { groupDigits } from '../../model/digits';

/** goose's own total for a session beside the sum of the model calls Beacon recorded one by one. */
export interface SessionReconciliation {
  /** when goose reported it (its stream-json `complete`: session-cumulative) */
  reported_at: string;
  reported_total_tokens: number;
  per_call_total_tokens: number;
  per_call_model_calls: number;
  /** reported minus per-call: tokens of calls that left no per-call record (goose's compaction has no span) */
  unspanned_tokens: number;
  note: string;
}

const sum = (u: Usage) => (u.input_tokens ?? 0) + (u.output_tokens ?? 0) + (u.cache_read?.input_tokens ?? 0) + (u.cache_creation?.input_tokens ?? 0);

/**
 * goose counts every provider call in its session totals (`complete`), including the ones it makes
 * without a span: default-loop compaction calls `compact_messages` with none, and opt-in compaction
 * spans carry no cache split. So the OTLP per-call sum can be lower than goose's own total. The
 * reported total is shown beside the per-call sum, never added to it, and the difference is named.
 */
export function reconcileSession(report: { timestamp: string; usage: Usage } | undefined, modelCalls: number, perCall: number): SessionReconciliation | undefined {
  if (!report) return undefined;
  const reported = sum(report.usage);
  const diff = reported - perCall;
  const note = modelCalls === 0
    ? 'no model call of this session arrived one by one (is the OTLP export on?)'
    : diff > 0 ? 'the difference is in calls without a span, e.g. compaction'
    : diff < 0 ? 'the per-call sum is higher: goose reported before the session ended, or other runs share this session id'
    : 'every token goose reported is in a recorded model call';
  return { reported_at: report.timestamp, reported_total_tokens: reported, per_call_total_tokens: perCall, per_call_model_calls: modelCalls, unspanned_tokens: diff, note };
}

export function reconciliationLine(r: SessionReconciliation): string {
  const n = groupDigits;
  return `session total: goose reported ${n(r.reported_total_tokens)} tokens (stream-json, ${r.reported_at}); its ${n(r.per_call_model_calls)} recorded model calls sum to ${n(r.per_call_total_tokens)}; difference ${n(r.unspanned_tokens)} — ${r.note}`;
}

/** A session's reconciliation from the log: its newest goose stream report beside the per-call sums given (all tokens of its model calls). */
export function sessionTotal(db: Database.Database, sessionId: string, modelCalls: number, perCall: number): SessionReconciliation | undefined {
  const [latest] = queryStreamReports(db, { sessionId }, 1).latest;
  if (!latest) return undefined;
  const rec = JSON.parse(latest.record) as { timestamp: string; gen_ai?: { usage?: Usage } };
  return reconcileSession({ timestamp: rec.timestamp, usage: rec.gen_ai?.usage ?? {} }, modelCalls, perCall);
}
