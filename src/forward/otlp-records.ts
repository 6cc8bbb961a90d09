import { hostname } from 'node:os';
import { BEACON_VERSION } from '../model/endpoint';
import type { StoredRow } from '../store/log/event-log';
import { redactString } from '../redact/secrets';
import { LogsTypes } from './otlp-proto';

/** protobufjs' input shapes (camelCase field names of proto/otlp.proto). */
type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: number }
  | { doubleValue: number }
  | { arrayValue: { values: AnyValue[] } }
  | { kvlistValue: { values: KeyValue[] } };
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface LongBits {
  low: number;
  high: number;
  unsigned: boolean;
}

/** OTel SeverityNumber for a Beacon severity (INFO, INFO2, WARN, ERROR, FATAL). */
export const OTEL_SEVERITY: Record<string, number> = { info: 9, low: 10, medium: 13, high: 17, critical: 21 };

/**
 * One export request for a batch of stored events: one LogRecord per event (the OTel
 * events-as-LogRecords conventions), grouped into one ResourceLogs per harness.
 *
 * - `event_name` is the Beacon action; `log.record.uid` is the Beacon event id, so a receiver can
 *   drop the repeats that at-least-once delivery allows.
 * - attributes are the record's fields flattened with dots (`session.id`, `gen_ai.usage.input_tokens`);
 *   `raw` (the source's leftover attributes) is left to the body.
 * - the body is the stored Beacon record JSON, so SIEM content written for Beacon works unchanged.
 */
export function encodeLogsRequest(rows: readonly StoredRow[]): Uint8Array {
  const byHarness = new Map<string, { version: string | undefined; records: unknown[] }>();
  for (const row of rows) {
    const rec = JSON.parse(row.record) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const harness = String(rec.harness?.name ?? 'unknown');
    let group = byHarness.get(harness);
    if (!group) byHarness.set(harness, (group = { version: rec.harness?.version, records: [] }));
    group.records.push(logRecord(row, rec));
  }
  const resourceLogs = [...byHarness].map(([harness, g]) => ({
    resource: { attributes: resourceAttributes(harness, g.version) },
    scopeLogs: [{ scope: { name: 'beacon.forward', version: BEACON_VERSION }, logRecords: g.records }],
  }));
  return LogsTypes.request.encode({ resourceLogs }).finish();
}

function logRecord(row: StoredRow, rec: Record<string, any>): unknown { // eslint-disable-line @typescript-eslint/no-explicit-any
  const attributes: KeyValue[] = [];
  const { raw: _raw, ...fields } = rec;
  flatten('', fields, attributes);
  if (typeof rec.event?.id === 'string') attributes.push({ key: 'log.record.uid', value: { stringValue: rec.event.id } });
  const time = u64(row.tsNs);
  const out: Record<string, unknown> = {
    timeUnixNano: time,
    // The time Beacon stored the event is not kept yet; the event time stands in for it.
    observedTimeUnixNano: time,
    severityNumber: OTEL_SEVERITY[rec.severity] ?? 0,
    severityText: typeof rec.severity === 'string' ? rec.severity : '',
    body: { stringValue: row.record },
    attributes,
    eventName: String(rec.event?.action ?? ''),
  };
  const traceId = hexBytes(rec.trace?.id, 16);
  const spanId = hexBytes(rec.trace?.span_id, 8);
  if (traceId) out.traceId = traceId;
  if (traceId && spanId) out.spanId = spanId;
  return out;
}

function resourceAttributes(harness: string, version: unknown): KeyValue[] {
  const kv: KeyValue[] = [
    { key: 'service.name', value: { stringValue: 'beacon' } },
    { key: 'service.version', value: { stringValue: BEACON_VERSION } },
    { key: 'host.name', value: { stringValue: hostname() } },
    { key: 'harness.name', value: { stringValue: harness } },
  ];
  if (typeof version === 'string' && version) kv.push({ key: 'harness.version', value: { stringValue: version } });
  return kv;
}

/** Nested objects become dotted keys; arrays stay arrays (of values or key-value lists). */
function flatten(prefix: string, value: unknown, out: KeyValue[]): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    for (const k in o) flatten(prefix === '' ? k : `${prefix}.${k}`, o[k], out);
    return;
  }
  const v = anyValue(value);
  if (v) out.push({ key: prefix, value: v });
}

function anyValue(v: unknown): AnyValue | undefined {
  switch (typeof v) {
    case 'string':
      return { stringValue: v };
    case 'boolean':
      return { boolValue: v };
    case 'number':
      // protobufjs writes a safe integer number as int64 directly (no BigInt round trip).
      return Number.isSafeInteger(v) ? { intValue: v } : { doubleValue: v };
    case 'object':
      if (v === null) return undefined;
      if (Array.isArray(v)) return { arrayValue: { values: v.map((x) => anyValue(x) ?? { stringValue: '' }) } };
      return { kvlistValue: { values: Object.entries(v).flatMap(([key, x]) => { const a = anyValue(x); return a ? [{ key, value: a }] : []; }) } };
    default:
      return undefined;
  }
}

/** A 64-bit integer as protobufjs writes it (two's complement halves). */
function u64(n: bigint): LongBits {
  const x = BigInt.asUintN(64, n);
  return { low: Number(x & 0xffffffffn) | 0, high: Number(x >> 32n) | 0, unsigned: true };
}

function hexBytes(v: unknown, bytes: number): Buffer | undefined {
  if (typeof v !== 'string' || v.length !== bytes * 2 || !/^[0-9a-fA-F]+$/.test(v) || /^0+$/.test(v)) return undefined;
  return Buffer.from(v, 'hex');
}

/** Reads a 2xx reply: the rejected count and message of a partial success (none for an empty body). */
export function decodeLogsResponse(body: Buffer, contentType: string | undefined): { rejected: number; message: string } {
  if (body.length === 0) return { rejected: 0, message: '' };
  try {
    if (/json/i.test(contentType ?? '')) {
      const j = JSON.parse(body.toString('utf8')) as { partialSuccess?: { rejectedLogRecords?: number | string; errorMessage?: string } };
      return { rejected: Number(j.partialSuccess?.rejectedLogRecords ?? 0) || 0, message: String(j.partialSuccess?.errorMessage ?? '') };
    }
    const r = LogsTypes.response.toObject(LogsTypes.response.decode(body), { longs: Number }) as { partialSuccess?: { rejectedLogRecords?: number; errorMessage?: string } };
    return { rejected: r.partialSuccess?.rejectedLogRecords ?? 0, message: r.partialSuccess?.errorMessage ?? '' };
  } catch {
    return { rejected: 0, message: '' }; // an unreadable success body is still a success
  }
}

/**
 * The message of an error reply (a google.rpc.Status, protobuf or JSON), else its text: redacted
 * (a receiver may echo the request's `Authorization`; `credentials` are the values this sender
 * sent), control characters removed, cut short. It ends up in /health, which any local user reads
 * (issue 22 item 10).
 */
export function errorReplyMessage(body: Buffer, contentType: string | undefined, credentials: ReadonlySet<string> = new Set()): string {
  let m = '';
  try {
    if (/protobuf/i.test(contentType ?? '')) m = String((LogsTypes.status.decode(body) as unknown as { message?: string }).message ?? '');
    else if (/json/i.test(contentType ?? '')) m = String((JSON.parse(body.toString('utf8')) as { message?: string }).message ?? '');
  } catch {
    /* fall through to the raw text */
  }
  if (!m) m = body.subarray(0, 4096).toString('utf8');
  return redactString(m.replace(/[\x00-\x1f\x7f]+/g, ' ').trim(), credentials).slice(0, 200);
}
