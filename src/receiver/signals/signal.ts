import type { Logger } from 'pino';
import type protobuf from 'protobufjs';
import type { EventSink } from '../../ingest/sink';
import type { ReceiverCounters } from '../../model/health';
import type { Obj } from '../otlp-json';

export type SignalName = 'traces' | 'logs' | 'metrics';

/** What one export became: events stored, already stored, and items refused with why (the partial success). */
export interface Consumed {
  inserted: number;
  duplicates: number;
  rejected: number;
  /** why items were refused (the first reasons); '' when none was */
  message: string;
}

/**
 * An export's partial success: what the ingest stage stored, and the items refused — logged by count
 * (never their content), the first three reasons returned to the sender.
 */
export function consumed(stored: { inserted: number; duplicates: number }, reasons: string[], items: { noun: string; count: number }, logger: Logger): Consumed {
  if (reasons.length > 0) logger.warn({ rejected: reasons.length, items: items.count }, `${items.noun} rejected`);
  const shown = `${reasons.slice(0, 3).join('; ')}${reasons.length > 3 ? '; …' : ''}`;
  return { inserted: stored.inserted, duplicates: stored.duplicates, rejected: reasons.length, message: reasons.length === 0 ? '' : `${reasons.length} ${items.noun} rejected: ${shown}` };
}

/**
 * One OTLP signal, as the OpenTelemetry Collector's `otlpreceiver/internal/{trace,logs,metrics}`:
 * its path, the decoders of its request (protobuf, JSON), how its items are counted, what consumes
 * them (its agent's source through `sources/dispatch.ts`, then the ingest stage) and the
 * partial-success field its reply counts refusals in. The receiver handles every signal alike from
 * these; a new signal is one module here and one line in `registry.ts`.
 */
export interface OtlpSignal<Decoded = unknown> {
  readonly name: SignalName;
  /** the OTLP/HTTP path, e.g. `/v1/traces` */
  readonly path: string;
  /** the OTLP/gRPC service whose `Export` method takes the same request, e.g. `opentelemetry.proto.collector.trace.v1.TraceService` */
  readonly grpcService: string;
  /** its items as messages name them: `spans`, `log records`, `data points` */
  readonly items: string;
  /** the /health counter of items received (the names of the first /health: spans, logRecords, metricPoints) */
  readonly receivedCounter: keyof ReceiverCounters & ('spans' | 'logRecords' | 'metricPoints');
  readonly requestType: protobuf.Type;
  readonly responseType: protobuf.Type;
  /** ExportPartialSuccess's count of refused items (`rejectedSpans`…); the same name counts them on /health */
  readonly partialSuccessField: keyof ReceiverCounters & ('rejectedSpans' | 'rejectedLogRecords' | 'rejectedDataPoints');
  decodeProtobuf(body: Buffer): Decoded;
  decodeJson(req: Obj): Decoded;
  /** items in a parsed JSON request, before it is mapped (the per-export limit; protobuf is counted on the wire) */
  countJson(req: Obj): number;
  /** items in a decoded export (every data point, kept or not) */
  count(decoded: Decoded): number;
  /** decoded items → events → the sink; resolves once they are committed, so an acknowledged export is never lost */
  consume(decoded: Decoded, sink: EventSink, logger: Logger): Promise<Consumed>;
}
