import type { NormalizedEvent } from '../../model/record';

/** One event as the store writes it: the indexed columns and the record JSON. Plain data, so it
 *  crosses to the writer thread by structured clone. */
export interface EventRow {
  id: string;
  tsNs: bigint;
  harness: string;
  method: string;
  action: string;
  sessionId: string | null;
  traceId: string | null;
  spanId: string | null;
  parentSpanId: string | null;
  toolCallId: string | null;
  model: string | null;
  provider: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheCreationTokens: number | null;
  reasoningTokens: number | null;
  costUsd: number | null;
  record: string;
  dropIfChatChildStored: boolean;
}

/** Signed 64-bit range: SQLite INTEGER cannot hold more. */
const MAX_I64 = (1n << 63n) - 1n;

export function toRow(ev: NormalizedEvent, json: string): EventRow {
  const r = ev.record;
  const u = r.gen_ai?.usage;
  const ts = ev.timeUnixNano > MAX_I64 ? MAX_I64 : ev.timeUnixNano < 0n ? 0n : ev.timeUnixNano;
  return {
    id: r.event.id,
    tsNs: ts,
    harness: r.harness.name,
    method: r.harness.collection_method,
    action: r.event.action,
    sessionId: r.session?.id ?? null,
    traceId: r.trace?.id || null,
    spanId: r.trace?.span_id || null,
    parentSpanId: r.trace?.parent_span_id || null,
    toolCallId: r.gen_ai?.tool?.call?.id ?? null,
    model: r.model ?? null,
    provider: r.gen_ai?.provider?.name ?? null,
    inputTokens: u?.input_tokens ?? null,
    outputTokens: u?.output_tokens ?? null,
    cacheReadTokens: u?.cache_read?.input_tokens ?? null,
    cacheCreationTokens: u?.cache_creation?.input_tokens ?? null,
    reasoningTokens: u?.reasoning?.output_tokens ?? null,
    costUsd: u?.cost_usd ?? null,
    record: json,
    dropIfChatChildStored: ev.dropIfChatChildStored === true,
  };
}
