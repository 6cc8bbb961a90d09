import type { Logger } from 'pino';
import { extractLogEvents, type LogEvent } from '../genai/log-records';
import { extractMetricEvents } from '../genai/metric-points';
import { BeaconError } from '../model/errors';
import type { LogRecord, MetricPoint } from '../model/otlp-signals';
import { sanitizeRecord } from '../redact/sanitize';
import { toRow, type EventRow } from '../store/row';

/** Where rows go: the collector's writer thread (any sink that commits rows and says what it inserted). */
interface RowSink {
  append(rows: EventRow[]): Promise<{ inserted: number; duplicates: number }>;
}

export interface SignalIngestResult {
  /** log records or data points in the export */
  items: number;
  /** events made from them */
  events: number;
  inserted: number;
  duplicates: number;
  rejected: number;
  message: string;
}

/** One logs export: goose's security and approval records → events → the log; every other record is counted only. */
export async function ingestLogs(records: readonly LogRecord[], writer: RowSink, logger: Logger): Promise<SignalIngestResult> {
  const { events } = extractLogEvents(records);
  return storeEvents(records.length, events, writer, logger, 'log records');
}

/** One metrics export: goose's counters → one summary event per counter and goose process. */
export async function ingestMetrics(decoded: { points: readonly MetricPoint[]; dataPoints: number }, writer: RowSink, logger: Logger): Promise<SignalIngestResult> {
  return storeEvents(decoded.dataPoints, extractMetricEvents(decoded.points), writer, logger, 'data points');
}

/**
 * redact/limit → row → commit, as the trace path does. The one place to re-point at the ingest
 * stage's `ingestEvents(events, sink)` once it exists.
 */
async function storeEvents(items: number, events: LogEvent[], writer: RowSink, logger: Logger, what: string): Promise<SignalIngestResult> {
  const rows: EventRow[] = [];
  const reasons: string[] = [];
  for (const ev of events) {
    try {
      const { json } = sanitizeRecord(ev.record, ev.contentField);
      rows.push(toRow(ev, json));
    } catch (e) {
      if (!(e instanceof BeaconError) || e.code !== 'bad_data') throw e;
      reasons.push(`${ev.record.event.action}: ${e.message}`);
    }
  }
  const stored = rows.length > 0 ? await writer.append(rows) : { inserted: 0, duplicates: 0 };
  if (reasons.length > 0) logger.warn({ rejected: reasons.length, items }, `${what} rejected`);
  return {
    items,
    events: events.length,
    inserted: stored.inserted,
    duplicates: stored.duplicates,
    rejected: reasons.length,
    message: reasons.length === 0 ? '' : `${reasons.length} ${what} rejected: ${reasons.slice(0, 3).join('; ')}`,
  };
}
