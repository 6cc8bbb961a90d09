import type { Logger } from 'pino';
import { extractGenAiEvents } from '../genai/extract';
import { BeaconError } from '../model/errors';
import type { SpanRecord } from '../model/span';
import { sanitizeRecord } from '../redact/sanitize';
import type { EventLogWriter } from '../store/event-log-writer';
import { toRow, type EventRow } from '../store/row';

export interface TraceIngestResult {
  spans: number;
  inserted: number;
  duplicates: number;
  rejected: number;
  /** why spans were rejected (the first reasons), for partial success */
  message: string;
}

/**
 * decode → normalize → redact/limit → store: the path of one trace export. Resolves only after the
 * events are committed, so an acknowledged export is never lost.
 */
export async function ingestTraces(spans: readonly SpanRecord[], writer: EventLogWriter, logger: Logger): Promise<TraceIngestResult> {
  const extraction = extractGenAiEvents(spans);
  const reasons = extraction.rejected.map((r) => `span ${r.spanId || '(no id)'}: ${r.reason}`);
  const rows: EventRow[] = [];
  for (const ev of extraction.events) {
    try {
      const { json } = sanitizeRecord(ev.record, ev.contentField);
      rows.push(toRow(ev, json));
    } catch (e) {
      if (!(e instanceof BeaconError) || e.code !== 'bad_data') throw e;
      reasons.push(`span ${ev.record.trace?.span_id ?? '(no id)'}: ${e.message}`);
    }
  }
  const stored = rows.length > 0 ? await writer.append(rows) : { inserted: 0, duplicates: 0, dropped: 0 };
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
