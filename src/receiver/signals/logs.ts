import type { Logger } from 'pino';
import { ingestEvents } from '../../ingest/ingest';
import type { EventSink } from '../../ingest/sink';
import type { LogRecord } from '../../model/otlp-signals';
import { logEvents } from '../../sources/dispatch';
import { mapAnyValue } from '../any-value';
import * as json from '../otlp-json';
import * as pb from '../otlp-protobuf';
import { OtlpTypes } from '../proto-root';
import { consumed, type Consumed, type OtlpSignal } from './signal';

/** `POST /v1/logs`: log records; those an agent's source keeps become events (goose's security and approval records), the rest are counted only. */
export const logs: OtlpSignal<LogRecord[]> = {
  name: 'logs',
  path: '/v1/logs',
  grpcService: 'opentelemetry.proto.collector.logs.v1.LogsService',
  items: 'log records',
  receivedCounter: 'logRecords',
  requestType: OtlpTypes.logsRequest,
  responseType: OtlpTypes.logsResponse,
  partialSuccessField: 'rejectedLogRecords',
  decodeProtobuf: decodeProtoLogs,
  decodeJson: decodeJsonLogs,
  countJson: (req) => json.countJsonItems(req, [['resourceLogs', 'resource_logs'], ['scopeLogs', 'scope_logs'], ['logRecords', 'log_records']]),
  count: (records) => records.length,
  consume: consumeLogs,
};

async function consumeLogs(records: LogRecord[], sink: EventSink, logger: Logger): Promise<Consumed> {
  const extraction = logEvents(records);
  const stored = await ingestEvents(extraction.events, sink);
  const reasons = [...extraction.rejected.map((r) => `log record ${r.spanId || '(no id)'}: ${r.reason}`), ...stored.rejected.map((r) => `${r.action}: ${r.reason}`)];
  return consumed(stored, reasons, { noun: 'log records', count: records.length }, logger);
}

/** Logs: every record, decoded (goose's security and approval records become events; genai decides). */
export function decodeProtoLogs(body: Buffer): LogRecord[] {
  const req = pb.decodeRequest(OtlpTypes.logsRequest, body);
  const out: LogRecord[] = [];
  for (const rl of (req.resourceLogs ?? []) as pb.Msg[]) {
    const resource = rl.resource ? pb.attributes(rl.resource.attributes) : {};
    for (const sl of (rl.scopeLogs ?? []) as pb.Msg[]) {
      const scope = { name: sl.scope?.name ?? '', version: sl.scope?.version ?? '' };
      for (const r of (sl.logRecords ?? []) as pb.Msg[]) {
        out.push({
          timeUnixNano: pb.u64(r.timeUnixNano),
          observedTimeUnixNano: pb.u64(r.observedTimeUnixNano),
          severityNumber: r.severityNumber ?? 0,
          severityText: r.severityText ?? '',
          body: r.body ? mapAnyValue(r.body, pb.PROTO_ANY_VALUE, 'body', 0) : null,
          attributes: pb.attributes(r.attributes, 'logRecord'),
          traceId: pb.id(r.traceId, 16, 'trace_id'),
          spanId: pb.id(r.spanId, 8, 'span_id'),
          eventName: r.eventName ?? '',
          resource,
          scope,
        });
      }
    }
  }
  return out;
}


/** Logs: every record, decoded (see decodeProtoLogs). */
export function decodeJsonLogs(body: Buffer | json.Obj): LogRecord[] {
  const req = Buffer.isBuffer(body) ? json.parseOtlpJson(body) : body;
  const out: LogRecord[] = [];
  for (const rl of json.list(req, 'resourceLogs', 'resource_logs', 'request')) {
    const res = json.obj(rl, 'resource', undefined, 'resourceLogs');
    const resource = res ? json.attributes(res, 'resource') : {};
    for (const sl of json.list(rl, 'scopeLogs', 'scope_logs', 'resourceLogs')) {
      const scope = json.scopeOf(sl, 'scopeLogs');
      for (const r of json.list(sl, 'logRecords', 'log_records', 'scopeLogs')) {
        const b = json.field(r, 'body');
        out.push({
          timeUnixNano: json.u64(json.field(r, 'timeUnixNano', 'time_unix_nano'), 'timeUnixNano'),
          observedTimeUnixNano: json.u64(json.field(r, 'observedTimeUnixNano', 'observed_time_unix_nano'), 'observedTimeUnixNano'),
          severityNumber: json.enumValue(json.field(r, 'severityNumber', 'severity_number'), SEVERITY_NUMBERS, 'severityNumber'),
          severityText: json.str(r, 'severityText', 'severity_text', 'logRecord'),
          body: b === undefined || b === null ? null : mapAnyValue(b, json.JSON_ANY_VALUE, 'body', 0),
          attributes: json.attributes(r, 'logRecord'),
          traceId: json.hexId(json.field(r, 'traceId', 'trace_id'), 16, 'traceId'),
          spanId: json.hexId(json.field(r, 'spanId', 'span_id'), 8, 'spanId'),
          eventName: json.str(r, 'eventName', 'event_name', 'logRecord'),
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

/** SEVERITY_NUMBER_UNSPECIFIED, then TRACE, TRACE2…4, DEBUG…, FATAL4: 1–24. */
const SEVERITY_NUMBERS = ['SEVERITY_NUMBER_UNSPECIFIED', ...['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'].flatMap((l) => ['', '2', '3', '4'].map((n) => `SEVERITY_NUMBER_${l}${n}`))];

