import type { Logger } from 'pino';
import { spanEvents } from '../sources/dispatch';
import { ingestEvents } from '../ingest/ingest';
import type { EventSink } from '../ingest/sink';
import type { SpanRecord } from '../model/span';

export interface TraceIngestResult {
  spans: number;
  inserted: number;
  duplicates: number;
  rejected: number;
  /** why spans were rejected (the first reasons), for partial success */
  message: string;
}

/**
 * One trace export: spans → events (genai) → the ingest stage → the sink. Resolves only after the
 * events are committed, so an acknowledged export is never lost.
 */
export async function ingestTraces(spans: readonly SpanRecord[], sink: EventSink, logger: Logger): Promise<TraceIngestResult> {
  const extraction = spanEvents(spans);
  const stored = await ingestEvents(extraction.events, sink);
  const reasons = [
    ...extraction.rejected.map((r) => `span ${r.spanId || '(no id)'}: ${r.reason}`),
    ...stored.rejected.map((r) => `span ${r.spanId ?? '(no id)'}: ${r.reason}`),
  ];
  if (reasons.length > 0) logger.warn({ rejected: reasons.length, spans: spans.length }, 'spans rejected');
  return {
    spans: spans.length,
    inserted: stored.inserted,
    duplicates: stored.duplicates,
    rejected: reasons.length,
    message: reasons.length === 0 ? '' : summarize(reasons),
  };
}

function summarize(reasons: string[]): string {
  const shown = reasons.slice(0, 3).join('; ');
  return reasons.length > 3 ? `${reasons.length} spans rejected: ${shown}; …` : `${reasons.length} span(s) rejected: ${shown}`;
}
