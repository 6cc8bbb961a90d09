import type { Logger } from 'pino';
import { ingestEvents } from '../../ingest/ingest';
import type { EventSink } from '../../ingest/sink';
import type { SpanRecord } from '../../model/span';
import { spanEvents } from '../../sources/dispatch';
import * as json from '../otlp-json';
import * as pb from '../otlp-protobuf';
import { OtlpTypes } from '../proto-root';
import { consumed, type Consumed, type OtlpSignal } from './signal';

/** `POST /v1/traces`: spans, each read by its agent's source (goose's, or plain GenAI conventions). */
export const traces: OtlpSignal<SpanRecord[]> = {
  name: 'traces',
  path: '/v1/traces',
  grpcService: 'opentelemetry.proto.collector.trace.v1.TraceService',
  items: 'spans',
  receivedCounter: 'spans',
  requestType: OtlpTypes.traceRequest,
  responseType: OtlpTypes.traceResponse,
  partialSuccessField: 'rejectedSpans',
  decodeProtobuf: decodeProtoTraces,
  decodeJson: decodeJsonTraces,
  countJson: (req) => json.countJsonItems(req, [['resourceSpans', 'resource_spans'], ['scopeSpans', 'scope_spans'], ['spans', 'spans']]),
  count: (spans) => spans.length,
  consume: consumeSpans,
};

/** spans → events (their sources) → the ingest stage → the sink; a span refused by either is reported with its id. */
async function consumeSpans(spans: SpanRecord[], sink: EventSink, logger: Logger): Promise<Consumed> {
  const extraction = spanEvents(spans);
  const stored = await ingestEvents(extraction.events, sink);
  const reasons = [
    ...extraction.rejected.map((r) => `span ${r.spanId || '(no id)'}: ${r.reason}`),
    ...stored.rejected.map((r) => `span ${r.spanId ?? '(no id)'}: ${r.reason}`),
  ];
  return consumed(stored, reasons, { noun: 'spans', count: spans.length }, logger);
}

export function decodeProtoTraces(body: Buffer): SpanRecord[] {
  const req = pb.decodeRequest(OtlpTypes.traceRequest, body);
  const out: SpanRecord[] = [];
  for (const rs of (req.resourceSpans ?? []) as pb.Msg[]) {
    const resource = rs.resource ? pb.attributes(rs.resource.attributes) : {};
    for (const ss of (rs.scopeSpans ?? []) as pb.Msg[]) {
      const scope = { name: ss.scope?.name ?? '', version: ss.scope?.version ?? '' };
      for (const s of (ss.spans ?? []) as pb.Msg[]) {
        out.push({
          traceId: pb.id(s.traceId, 16, 'trace_id'),
          spanId: pb.id(s.spanId, 8, 'span_id'),
          parentSpanId: pb.id(s.parentSpanId, 8, 'parent_span_id'),
          name: s.name ?? '',
          kind: s.kind ?? 0,
          startTimeUnixNano: pb.u64(s.startTimeUnixNano),
          endTimeUnixNano: pb.u64(s.endTimeUnixNano),
          attributes: pb.attributes(s.attributes),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}


export function decodeJsonTraces(body: Buffer | json.Obj): SpanRecord[] {
  const req = Buffer.isBuffer(body) ? json.parseOtlpJson(body) : body;
  const out: SpanRecord[] = [];
  for (const rs of json.list(req, 'resourceSpans', 'resource_spans', 'request')) {
    const resource = json.resourceAttributes(rs);
    for (const ss of json.list(rs, 'scopeSpans', 'scope_spans', 'resourceSpans')) {
      const sc = json.obj(ss, 'scope', undefined, 'scopeSpans');
      const scope = { name: sc ? json.str(sc, 'name', undefined, 'scope') : '', version: sc ? json.str(sc, 'version', undefined, 'scope') : '' };
      for (const s of json.list(ss, 'spans', undefined, 'scopeSpans')) {
        const status = json.obj(s, 'status', undefined, 'span');
        out.push({
          traceId: json.hexId(json.field(s, 'traceId', 'trace_id'), 16, 'traceId'),
          spanId: json.hexId(json.field(s, 'spanId', 'span_id'), 8, 'spanId'),
          parentSpanId: json.hexId(json.field(s, 'parentSpanId', 'parent_span_id'), 8, 'parentSpanId'),
          name: json.str(s, 'name', undefined, 'span'),
          kind: json.enumValue(json.field(s, 'kind'), SPAN_KINDS, 'kind'),
          startTimeUnixNano: json.u64(json.field(s, 'startTimeUnixNano', 'start_time_unix_nano'), 'startTimeUnixNano'),
          endTimeUnixNano: json.u64(json.field(s, 'endTimeUnixNano', 'end_time_unix_nano'), 'endTimeUnixNano'),
          attributes: json.attributes(s, 'span'),
          status: {
            code: status ? json.enumValue(json.field(status, 'code'), STATUS_CODES, 'status.code') : 0,
            message: status ? json.str(status, 'message', undefined, 'status') : '',
          },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

const SPAN_KINDS = ['SPAN_KIND_UNSPECIFIED', 'SPAN_KIND_INTERNAL', 'SPAN_KIND_SERVER', 'SPAN_KIND_CLIENT', 'SPAN_KIND_PRODUCER', 'SPAN_KIND_CONSUMER'];
const STATUS_CODES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];

