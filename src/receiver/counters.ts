import type { ReceiverCounters } from '../model/health';
import type { Consumed, OtlpSignal } from './signals/signal';

export function newReceiverCounters(): ReceiverCounters {
  return { exports: 0, inserted: 0, duplicates: 0, rejected: 0, spans: 0, logRecords: 0, metricPoints: 0, rejectedSpans: 0, rejectedLogRecords: 0, rejectedDataPoints: 0 };
}

/** One export answered, counted alike whichever transport (OTLP/HTTP or OTLP/gRPC) carried it. */
export function countExport(counters: ReceiverCounters, signal: OtlpSignal, items: number, consumed: Consumed): void {
  counters.exports++;
  counters.inserted += consumed.inserted;
  counters.duplicates += consumed.duplicates;
  counters.rejected += consumed.rejected;
  counters[signal.receivedCounter] += items;
  counters[signal.partialSuccessField] += consumed.rejected;
}
