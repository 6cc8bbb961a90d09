import { newRecord, type Envelope } from '../model/envelope';
import type { BeaconRecord, CollectionMethod } from '../model/record';
import type { Attributes } from '../model/span';
import { stringAttr } from './attributes';

/** Where an OTLP item came from: what every record made of it says about its origin. */
export interface OtlpOrigin {
  harness: string;
  /** the item's resource: the runtime's `service.version` and `user.name` are read from it */
  resource: Attributes;
  /** when the agent states its version elsewhere than `service.version`; null: no version known (never the runtime's) */
  version?: string | null;
  sessionId?: string;
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  /** `poll` for what `beacon import` read from the agent's own store: the same records, another path */
  method?: CollectionMethod;
}

/**
 * The one envelope of a record made from OTLP (spans and log records, every agent): identity, time,
 * harness with `collection_method: otlp`, the user the runtime names, the session and the trace.
 */
export function otlpRecord(e: Omit<Envelope, 'harness'>, o: OtlpOrigin): BeaconRecord {
  const version = o.version === null ? undefined : (o.version ?? stringAttr(o.resource, 'service.version'));
  const record = newRecord({ ...e, harness: { name: o.harness, ...(version ? { version } : {}), collection_method: o.method ?? 'otlp' } });
  const user = stringAttr(o.resource, 'user.name');
  if (user) record.user = { name: user };
  if (o.sessionId) record.session = { id: o.sessionId };
  if (o.traceId || o.spanId) {
    record.trace = { ...(o.traceId ? { id: o.traceId } : {}), ...(o.spanId ? { span_id: o.spanId } : {}), ...(o.parentSpanId ? { parent_span_id: o.parentSpanId } : {}) };
  }
  return record;
}
