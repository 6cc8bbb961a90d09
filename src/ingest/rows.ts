import { BeaconError } from '../model/errors';
import type { BeaconRecord, NormalizedEvent } from '../model/record';
import { sanitizeRecord } from '../redact/sanitize';
import { toRow, type EventRow } from '../store/log/row';
import { primaryContentField } from './content-field';

/** An event that cannot be stored (even stripped of its content it exceeds the event cap). */
export interface RejectedEvent {
  /** the OTLP span it came from, when it came from one */
  spanId?: string;
  eventId: string;
  action: string;
  reason: string;
}

export interface Rows {
  rows: EventRow[];
  rejected: RejectedEvent[];
}

/**
 * Normalized events → rows: redact and limit each record (in place), mark its primary content,
 * serialize it, and take the columns the store indexes. The one place the pipeline is assembled.
 */
export function toRows(events: readonly NormalizedEvent[], sanitize: typeof sanitizeRecord = sanitizeRecord): Rows {
  // `sanitize` is replaced only by the bench, to measure redaction's cost against its unredacted baseline
  const out: Rows = { rows: [], rejected: [] };
  for (const ev of events) {
    try {
      const { json } = sanitize(ev.record, primaryContentField(ev.record));
      out.rows.push(toRow(ev, json));
    } catch (e) {
      if (!(e instanceof BeaconError) || e.code !== 'bad_data') throw e;
      const spanId = ev.record.trace?.span_id;
      out.rejected.push({ ...(spanId ? { spanId } : {}), eventId: ev.record.event.id, action: ev.record.event.action, reason: e.message });
    }
  }
  return out;
}

/**
 * The record as it would be stored (redacted and limited), without touching the event: what a
 * policy provider is shown before the event itself is written.
 */
export function redactedCopy(ev: NormalizedEvent): BeaconRecord {
  const copy = structuredClone(ev.record);
  return sanitizeRecord(copy, primaryContentField(copy)).record;
}
