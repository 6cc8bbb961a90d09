import type { Logger } from 'pino';
import { ingestEvents } from '../../ingest/ingest';
import type { EventSink } from '../../ingest/sink';
import { temporalityOf, type MetricPoint } from '../../model/otlp-signals';
import { metricEvents } from '../../sources/dispatch';
import { doubleValue, int64Value } from '../any-value';
import * as json from '../otlp-json';
import * as pb from '../otlp-protobuf';
import { OtlpTypes } from '../proto-root';
import { consumed, type Consumed, type OtlpSignal } from './signal';

/** A metrics export decoded: the number points of sums and gauges, and every data point counted. */
export interface DecodedMetrics {
  points: MetricPoint[];
  dataPoints: number;
}

const METRIC_TYPES = ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'];

/** `POST /v1/metrics`: data points; the counters an agent's source keeps become summary events, the rest are counted only. */
export const metrics: OtlpSignal<DecodedMetrics> = {
  name: 'metrics',
  path: '/v1/metrics',
  grpcService: 'opentelemetry.proto.collector.metrics.v1.MetricsService',
  items: 'data points',
  receivedCounter: 'metricPoints',
  requestType: OtlpTypes.metricsRequest,
  responseType: OtlpTypes.metricsResponse,
  partialSuccessField: 'rejectedDataPoints',
  decodeProtobuf: decodeProtoMetrics,
  decodeJson: decodeJsonMetrics,
  countJson: (req) =>
    json.countJsonItems(req, [['resourceMetrics', 'resource_metrics'], ['scopeMetrics', 'scope_metrics'], ['metrics', 'metrics']], (m) => {
      let n = 0;
      for (const t of METRIC_TYPES) n += json.jsonItems((m as json.Obj)[t] ?? (m as json.Obj)[t === 'exponentialHistogram' ? 'exponential_histogram' : t], ['dataPoints', 'data_points']).length;
      return n;
    }),
  count: (decoded) => decoded.dataPoints,
  consume: consumePoints,
};

async function consumePoints(decoded: DecodedMetrics, sink: EventSink, logger: Logger): Promise<Consumed> {
  const stored = await ingestEvents(metricEvents(decoded.points), sink);
  const reasons = stored.rejected.map((r) => `${r.action}: ${r.reason}`);
  return consumed(stored, reasons, { noun: 'data points', count: decoded.dataPoints }, logger);
}

/**
 * Metrics: the number points of sums and gauges (goose's counters), and the count of every data
 * point (histograms and summaries are counted, not kept).
 */
export function decodeProtoMetrics(body: Buffer): { points: MetricPoint[]; dataPoints: number } {
  const req = pb.decodeRequest(OtlpTypes.metricsRequest, body);
  const points: MetricPoint[] = [];
  let dataPoints = 0;
  for (const rm of (req.resourceMetrics ?? []) as pb.Msg[]) {
    const resource = rm.resource ? pb.attributes(rm.resource.attributes) : {};
    for (const sm of (rm.scopeMetrics ?? []) as pb.Msg[]) {
      const scope = { name: sm.scope?.name ?? '', version: sm.scope?.version ?? '' };
      for (const m of (sm.metrics ?? []) as pb.Msg[]) {
        const data = m.gauge ?? m.sum ?? m.histogram ?? m.exponentialHistogram ?? m.summary;
        dataPoints += data?.dataPoints?.length ?? 0;
        const kind = m.sum ? 'sum' : m.gauge ? 'gauge' : undefined;
        if (!kind) continue;
        for (const p of (data.dataPoints ?? []) as pb.Msg[]) {
          const value = pb.own(p, 'asInt') ? int64Value(pb.i64(p.asInt), 'asInt') : pb.own(p, 'asDouble') ? doubleValue(p.asDouble) : undefined;
          if (value === undefined) continue;
          points.push({
            metric: m.name ?? '',
            unit: m.unit ?? '',
            kind,
            temporality: kind === 'sum' ? temporalityOf(m.sum.aggregationTemporality ?? 0) : 'unspecified',
            monotonic: kind === 'sum' && m.sum.isMonotonic === true,
            startTimeUnixNano: pb.u64(p.startTimeUnixNano),
            timeUnixNano: pb.u64(p.timeUnixNano),
            value,
            attributes: pb.attributes(p.attributes, 'dataPoint'),
            resource,
            scope,
          });
        }
      }
    }
  }
  return { points, dataPoints };
}


const TEMPORALITIES = ['AGGREGATION_TEMPORALITY_UNSPECIFIED', 'AGGREGATION_TEMPORALITY_DELTA', 'AGGREGATION_TEMPORALITY_CUMULATIVE'];

/** Metrics: the number points of sums and gauges, and the count of every data point (see decodeProtoMetrics). */
export function decodeJsonMetrics(body: Buffer | json.Obj): { points: MetricPoint[]; dataPoints: number } {
  const req = Buffer.isBuffer(body) ? json.parseOtlpJson(body) : body;
  const points: MetricPoint[] = [];
  let dataPoints = 0;
  for (const rm of json.list(req, 'resourceMetrics', 'resource_metrics', 'request')) {
    const res = json.obj(rm, 'resource', undefined, 'resourceMetrics');
    const resource = res ? json.attributes(res, 'resource') : {};
    for (const sm of json.list(rm, 'scopeMetrics', 'scope_metrics', 'resourceMetrics')) {
      const scope = json.scopeOf(sm, 'scopeMetrics');
      for (const m of json.list(sm, 'metrics', undefined, 'scopeMetrics')) {
        for (const t of METRIC_TYPES) {
          const data = json.obj(m, t, t === 'exponentialHistogram' ? 'exponential_histogram' : undefined, 'metric');
          if (!data) continue;
          const dps = json.list(data, 'dataPoints', 'data_points', t);
          dataPoints += dps.length;
          if (t !== 'sum' && t !== 'gauge') continue;
          const temporality = t === 'sum' ? temporalityOf(json.enumValue(json.field(data, 'aggregationTemporality', 'aggregation_temporality'), TEMPORALITIES, 'aggregationTemporality')) : 'unspecified';
          const monotonic = t === 'sum' && json.field(data, 'isMonotonic', 'is_monotonic') === true;
          const metric = json.str(m, 'name', undefined, 'metric');
          const unit = json.str(m, 'unit', undefined, 'metric');
          for (const p of dps) {
            const asInt = json.field(p, 'asInt', 'as_int');
            const asDouble = json.field(p, 'asDouble', 'as_double');
            const value = asInt !== undefined && asInt !== null ? int64Value(json.jsonInteger(asInt, 'asInt'), 'asInt') : asDouble !== undefined && asDouble !== null ? json.double(asDouble, 'asDouble') : undefined;
            if (value === undefined) continue;
            points.push({
              metric,
              unit,
              kind: t,
              temporality,
              monotonic,
              startTimeUnixNano: json.u64(json.field(p, 'startTimeUnixNano', 'start_time_unix_nano'), 'startTimeUnixNano'),
              timeUnixNano: json.u64(json.field(p, 'timeUnixNano', 'time_unix_nano'), 'timeUnixNano'),
              value,
              attributes: json.attributes(p, 'dataPoint'),
              resource,
              scope,
            });
          }
        }
      }
    }
  }
  return { points, dataPoints };
}

