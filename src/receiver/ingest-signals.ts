import type { Logger } from 'pino';
import { logEvents, metricEvents } from '../sources/dispatch';
import { ingestEvents } from '../ingest/ingest';
import type { EventSink } from '../ingest/sink';
import type { NormalizedEvent } from '../model/record';
import type { LogRecord, MetricPoint } from '../model/otlp-signals';

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

/** One logs export: each agent's records its source keeps → events → the ingest stage; every other record is counted only. */
export async function ingestLogs(records: readonly LogRecord[], sink: EventSink, logger: Logger): Promise<SignalIngestResult> {
  return store(records.length, logEvents(records).events, sink, logger, 'log records');
}

/** One metrics export: the counters an agent's source keeps → summary events → the ingest stage. */
export async function ingestMetrics(decoded: { points: readonly MetricPoint[]; dataPoints: number }, sink: EventSink, logger: Logger): Promise<SignalIngestResult> {
  return store(decoded.dataPoints, metricEvents(decoded.points), sink, logger, 'data points');
}

async function store(items: number, events: NormalizedEvent[], sink: EventSink, logger: Logger, what: string): Promise<SignalIngestResult> {
  const stored = await ingestEvents(events, sink);
  const reasons = stored.rejected.map((r) => `${r.action}: ${r.reason}`);
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
