import { newRecord } from '../../model/envelope';
import { contentEventId } from '../../model/event-id';
import type { MetricPoint } from '../../model/otlp-signals';
import type { MetricSummary, NormalizedEvent } from '../../model/record';
import { formatTimestamp } from '../../model/time';
import type { Attributes } from '../../model/span';
import { stringAttr } from '../attributes';

/**
 * goose's counters kept, and the attributes each is summarized by. goose's metrics layer puts every
 * field of the tracing event on the data point — the message, and on the security counters the
 * scanned call (`tool.call_json`) and the scanner's explanation — so only these identifier-like
 * attributes are kept; the rest never leaves this function.
 */
const COUNTERS: Record<string, readonly string[]> = {
  'goose.tool_completions': ['tool_name', 'result'],
  'goose.tool_calls': ['tool_name'],
  'goose.prompt_injection_finding': ['security.action', 'tool.name'],
  'goose.prompt_injection_tool_call_passed': ['tool.name'],
  'goose.prompt_injection_user_decisions': ['security.event_type', 'user.decision'],
  'goose.session_starts': ['session_type', 'interactive'],
  'goose.session_completions': ['session_type', 'exit_type'],
  'goose.session_duration_ms': ['session_type'],
  'goose.session_tokens': ['session_type'],
  // goose-cli cli.rs, goose-server, scheduler (goose ≥ 1.50): recipe runs by recipe, CLI commands by name
  'goose.recipe_runs': ['recipe_name', 'recipe_version', 'session_type', 'interface'],
  'goose.cli_commands': ['command'],
};

/**
 * Counter points → one `metric.observed` summary per counter and goose process, not a row per point.
 *
 * goose exports cumulative sums by default: each export restates the totals since the counter's
 * start time (the process's first such event), every 60 s. A summary's id is derived from the
 * process (resource), the counter, its start time and the values, so an export that restates
 * unchanged totals adds nothing and a changed total adds one new record: the log stays append-only
 * and the newest record of a series is its current state. A goose restart starts a new series (a
 * new start time), so a counter reset never mixes with the old totals. With delta temporality each
 * record covers its own interval (the collection time joins the id).
 *
 * goose's counter points carry no session id (its metrics layer sees only the event's own fields),
 * so a summary belongs to a goose process and its user, not to a session.
 */
export function extractMetricEvents(points: readonly MetricPoint[]): NormalizedEvent[] {
  const series = new Map<string, MetricPoint[]>();
  for (const p of points) {
    if (p.kind !== 'sum' || !(p.metric in COUNTERS)) continue;
    const key = JSON.stringify([canonical(p.resource), p.scope.name, p.metric, p.temporality, p.startTimeUnixNano.toString(), p.temporality === 'delta' ? p.timeUnixNano.toString() : '']);
    const list = series.get(key) ?? [];
    list.push(p);
    series.set(key, list);
  }
  const out: NormalizedEvent[] = [];
  for (const [key, list] of series) out.push(summaryEvent(key, list));
  return out;
}

function summaryEvent(seriesKey: string, points: MetricPoint[]): NormalizedEvent {
  const first = points[0]!;
  const kept = COUNTERS[first.metric]!;
  const groups = new Map<string, { attributes: Record<string, string | number | boolean>; value: number }>();
  let time = 0n;
  for (const p of points) {
    if (p.timeUnixNano > time) time = p.timeUnixNano;
    const attributes: Record<string, string | number | boolean> = {};
    for (const k of kept) {
      const v = p.attributes[k];
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') attributes[k] = v;
    }
    const gk = JSON.stringify(kept.map((k) => attributes[k] ?? null));
    const g = groups.get(gk) ?? { attributes, value: 0 };
    g.value += Number(p.value);
    groups.set(gk, g);
  }
  const summaryPoints = [...groups.values()].sort((x, y) => y.value - x.value || JSON.stringify(x.attributes).localeCompare(JSON.stringify(y.attributes)));
  const total = summaryPoints.reduce((s, g) => s + g.value, 0);
  const at = time || first.startTimeUnixNano;
  const metric: MetricSummary = {
    name: first.metric,
    ...(first.unit ? { unit: first.unit } : {}),
    temporality: first.temporality,
    start_time: formatTimestamp(first.startTimeUnixNano),
    time: formatTimestamp(at),
    total,
    points: summaryPoints,
  };
  const version = stringAttr(first.resource, 'service.version');
  const record = newRecord({
    timeUnixNano: at,
    action: 'metric.observed',
    category: 'metric',
    id: contentEventId(JSON.stringify(['otlp-metric', seriesKey, summaryPoints])),
    harness: { name: 'goose', ...(version ? { version } : {}), collection_method: 'otlp' },
    message: `${first.metric} ${total}${first.temporality === 'cumulative' ? ' since the process started' : ''}: ${summaryPoints.slice(0, 6).map((g) => `${Object.values(g.attributes).join(' ') || 'all'} ${g.value}`).join(', ')}`,
  });
  const user = stringAttr(first.resource, 'user.name');
  if (user) record.user = { name: user };
  record.metric = metric;
  record.raw = { otel_signal: 'metrics', scope: first.scope.name, data_points: points.length };
  return { record, timeUnixNano: at };
}

function canonical(attrs: Attributes): string {
  return JSON.stringify(Object.keys(attrs).sort().map((k) => [k, attrs[k]]));
}
