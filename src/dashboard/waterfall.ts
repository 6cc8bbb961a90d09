/* eslint-disable @typescript-eslint/no-explicit-any */
import type { TimelineItem, ToolCallRow } from '../store/queries/tool-calls';
import { loadD3 } from './chart';
import { elapsedAxis, type ElapsedAxis } from './elapsed-axis';
import { fmtDuration } from './format';
import { html, type Html } from './html';

/**
 * A session's waterfall, as Phoenix and Jaeger draw a trace: one row per model call, tool call and
 * agent step, a bar from the call's start (offset from the session's first event) as long as it
 * took, rows nested where the agent's spans nest (goose's `reply` → `chat` / `execute_tool`,
 * Copilot CLI's `invoke_agent` → `chat` / `execute_tool`).
 */
export interface WaterfallRow {
  kind: 'model' | 'tool' | 'step';
  label: string;
  /** ms from the session's start */
  startMs: number;
  /** undefined: no path reported how long it took (drawn as a mark) */
  durationMs?: number;
  depth: number;
  failed: boolean;
  denied: boolean;
  callId?: string;
  spanId?: string;
  parentSpanId?: string;
}

type Rec = Record<string, any>;
const NS_PER_MS = 1_000_000n;

/**
 * When a record's call began. A span's time is its start (`raw.otel_signal` traces, as
 * otel-genai/span-record.ts stores it); an OTLP log record, a post-tool hook and a stream event are
 * written when the call ended (Claude Code's `api_request` and `tool_result` events, measured in
 * the lab: their time is the end of the duration they carry), so their start is the time less it.
 */
function startOf(tsNs: bigint, r: Rec, durationMs: number | undefined, endsAtRecord: boolean): bigint {
  if (r.raw?.otel_signal === 'traces' || !endsAtRecord || durationMs === undefined) return tsNs;
  return tsNs - BigInt(Math.round(durationMs)) * NS_PER_MS;
}

const numberOr = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
const durationIn = (r: Rec): number | undefined => numberOr(r.gen_ai?.duration_ms) ?? numberOr(r.command?.duration_ms);
const spanIn = (r: Rec): { span_id?: string; parent_span_id?: string } => (typeof r.trace?.span_id === 'string' ? r.trace : {});

/** A tool call's bar: its span if a span reported it, else the pre-tool hook to the last result. */
function toolRow(c: ToolCallRow, originNs: bigint): WaterfallRow {
  const span = c.observations.find((o) => o.record.raw?.otel_signal === 'traces');
  const pre = c.observations.find((o) => o.observer === 'pre-tool');
  const results = c.observations.filter((o) => o.observer !== 'pre-tool' && o.observer !== 'policy');
  let startNs: bigint;
  let durationMs: number | undefined;
  if (span) {
    startNs = span.event.tsNs;
    durationMs = durationIn(span.record);
  } else {
    const timed = results.find((o) => durationIn(o.record) !== undefined);
    durationMs = timed ? durationIn(timed.record) : undefined;
    if (pre) startNs = pre.event.tsNs;
    else if (timed) startNs = startOf(timed.event.tsNs, timed.record, durationMs, true);
    else startNs = c.firstNs;
    const last = results.find((o) => o.observer === 'post-tool') ?? results.at(-1);
    if (durationMs === undefined && pre && last && last.event.tsNs > pre.event.tsNs) durationMs = Number(last.event.tsNs - pre.event.tsNs) / 1e6;
  }
  const ids = c.observations.map((o) => spanIn(o.record)).find((t) => t.span_id !== undefined) ?? {};
  const command = c.observations.map((o) => o.record.command?.command).find((v) => typeof v === 'string');
  const name = c.toolName ?? 'tool';
  return {
    kind: 'tool', label: command ? `${name}: ${command}` : name, startMs: msBetween(originNs, startNs), durationMs,
    depth: 0, failed: c.failed, denied: c.denied, ...(c.callId ? { callId: c.callId } : {}), ...spanIds(span ? spanIn(span.record) : ids),
  };
}

function spanIds(t: { span_id?: string; parent_span_id?: string }): Pick<WaterfallRow, 'spanId' | 'parentSpanId'> {
  return { ...(t.span_id ? { spanId: t.span_id } : {}), ...(t.parent_span_id ? { parentSpanId: t.parent_span_id } : {}) };
}

const msBetween = (fromNs: bigint, toNs: bigint): number => Number(toNs - fromNs) / 1e6;

/**
 * The waterfall's rows in tree order (a parent, then its children by start). An agent step is a
 * span other rows name as their parent: its bar runs over the events that carry it (Copilot CLI's
 * prompt and end of turn share the `invoke_agent` span) or, when none is stored (goose's `reply`
 * span is not an event), over its children.
 */
export function waterfallRows(items: readonly TimelineItem[], originNs: bigint): WaterfallRow[] {
  const rows: WaterfallRow[] = [];
  const stepEvents = new Map<string, bigint[]>();
  for (const it of items) {
    if (it.kind === 'tool_call') {
      rows.push(toolRow(it, originNs));
      continue;
    }
    const r = it.record;
    const t = spanIn(r);
    if (it.event.action === 'model.invoked') {
      const durationMs = durationIn(r);
      const startNs = startOf(it.event.tsNs, r, durationMs, it.event.method !== 'hook');
      rows.push({ kind: 'model', label: `model ${r.model ?? r.gen_ai?.request?.model ?? '?'}`, startMs: msBetween(originNs, startNs), durationMs, depth: 0, failed: r.error !== undefined, denied: false, ...spanIds(t) });
    } else if (t.span_id) {
      const list = stepEvents.get(t.span_id) ?? [];
      list.push(it.event.tsNs);
      stepEvents.set(t.span_id, list);
    }
  }
  addSteps(rows, stepEvents, originNs);
  return treeOrder(rows);
}

function addSteps(rows: WaterfallRow[], stepEvents: ReadonlyMap<string, bigint[]>, originNs: bigint): void {
  const own = new Set(rows.map((r) => r.spanId).filter((s): s is string => s !== undefined));
  const parents = new Set(rows.map((r) => r.parentSpanId).filter((s): s is string => s !== undefined && !own.has(s)));
  for (const span of parents) {
    const children = rows.filter((r) => r.parentSpanId === span);
    const times = (stepEvents.get(span) ?? []).map((ns) => msBetween(originNs, ns));
    const starts = [...times, ...children.map((c) => c.startMs)];
    const ends = [...times, ...children.map((c) => c.startMs + (c.durationMs ?? 0))];
    const startMs = Math.min(...starts);
    rows.push({ kind: 'step', label: 'agent turn', startMs, durationMs: Math.max(...ends) - startMs, depth: 0, failed: false, denied: false, spanId: span });
  }
}

/** Depth-first by start, each row under its parent span (a cycle or a missing parent leaves it at the top). */
function treeOrder(rows: WaterfallRow[]): WaterfallRow[] {
  const bySpan = new Map<string, WaterfallRow>();
  for (const r of rows) if (r.spanId && (r.kind === 'step' || !bySpan.has(r.spanId))) bySpan.set(r.spanId, r);
  const children = new Map<WaterfallRow | undefined, WaterfallRow[]>();
  for (const r of rows) {
    const up = r.parentSpanId !== undefined ? bySpan.get(r.parentSpanId) : undefined;
    const parent = up && up !== r ? up : undefined;
    const list = children.get(parent) ?? [];
    list.push(r);
    children.set(parent, list);
  }
  const out: WaterfallRow[] = [];
  const seen = new Set<WaterfallRow>();
  const visit = (parent: WaterfallRow | undefined, depth: number) => {
    for (const r of (children.get(parent) ?? []).sort((a, b) => a.startMs - b.startMs)) {
      if (seen.has(r)) continue;
      seen.add(r);
      r.depth = depth;
      out.push(r);
      visit(r, depth + 1);
    }
  };
  visit(undefined, 0);
  for (const r of rows) if (!seen.has(r)) out.push(r); // rows caught in a span cycle
  return out;
}

const ROW_H = 22;
const LABEL_W = 300;
const INDENT = 14;
/** ~6.6 px per character of the 12 px labels: the label is cut to its column, the whole text in its <title> */
const CHAR_W = 6.6;

/** The waterfall as server-rendered SVG: every label escaped, no script, no inline style (the CSP allows neither). */
export async function renderWaterfall(rows: readonly WaterfallRow[], opts: { width?: number } = {}): Promise<Html> {
  if (rows.length === 0) return html`<p class="muted" id="waterfall-empty">No model or tool calls on this page to draw.</p>`;
  const W = opts.width ?? 1100;
  const [top, bottom, right] = [26, 8, 70];
  const end = Math.max(1, ...rows.map((r) => r.startMs + (r.durationMs ?? 0)));
  const axis = elapsedAxis((await loadD3()).scale, end, LABEL_W, W - right);
  const H = top + rows.length * ROW_H + bottom;
  const bars = rows.map((r, i) => barRow(r, i, top, axis));
  return html`<div class="legend"><span><i class="wf-model"></i>model call</span><span><i class="wf-tool"></i>tool call</span><span><i class="wf-step"></i>agent turn</span><span><i class="wf-failed"></i>failed or denied</span></div>
<svg class="chart waterfall" id="waterfall" viewBox="0 0 ${W} ${H}" role="img" aria-label="model and tool calls by time from the session's start (${axis.unit})" data-rows="${rows.length}">
<text class="unit" x="${LABEL_W - 8}" y="14" text-anchor="end">from start (${axis.unit})</text>
${axis.ticks.map((t) => html`<line class="grid" x1="${t.x.toFixed(1)}" x2="${t.x.toFixed(1)}" y1="${top - 4}" y2="${H - bottom}"></line><text class="x" x="${t.x.toFixed(1)}" y="14" text-anchor="${t.anchor}">${t.label}</text>`)}
${bars}
</svg>`;
}

function barRow(r: WaterfallRow, i: number, top: number, axis: ElapsedAxis): Html {
  const y = top + i * ROW_H;
  const x0 = axis.x(r.startMs);
  const w = Math.max(2, axis.x(r.startMs + (r.durationMs ?? 0)) - x0);
  const indent = Math.min(r.depth, 8) * INDENT;
  const room = Math.floor((LABEL_W - 12 - indent) / CHAR_W);
  const label = r.label.length > room ? `${r.label.slice(0, Math.max(1, room - 1))}…` : r.label;
  const took = r.durationMs === undefined ? 'duration not reported' : fmtDuration(BigInt(Math.round(r.durationMs)) * NS_PER_MS);
  const cls = `wf-${r.kind}${r.failed || r.denied ? ' wf-failed' : ''}`;
  const tip = `${r.label} — starts ${fmtDuration(BigInt(Math.round(r.startMs)) * NS_PER_MS)} after the session's start, took ${took}${r.denied ? ', denied' : r.failed ? ', failed' : ''}`;
  const after = x0 + w + 4;
  return html`<g class="wf-row" data-kind="${r.kind}" data-depth="${r.depth}" data-start-ms="${Math.round(r.startMs)}" data-ms="${r.durationMs === undefined ? '' : Math.round(r.durationMs)}"${r.callId ? html` data-call="${r.callId}"` : ''}><title>${tip}</title>
<text class="wf-label" x="${4 + indent}" y="${y + 15}">${label}</text>
<rect class="${cls}" x="${x0.toFixed(1)}" y="${y + 4}" width="${w.toFixed(1)}" height="${ROW_H - 8}" rx="2"></rect>
<text class="wf-took" x="${after.toFixed(1)}" y="${y + 15}">${r.durationMs === undefined ? '' : took}</text></g>`;
}
