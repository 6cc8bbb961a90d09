/* eslint-disable @typescript-eslint/no-explicit-any */
import { sessionOrigin } from '../../store/queries/sessions';
import { sessionTotal } from '../../store/queries/session-total';
import { sessionTimeline } from '../../store/queries/timeline';
import type { Observer, TimelineItem, ToolCallRow } from '../../store/queries/tool-calls';
import { UsagePricer } from '../../pricing/usage-groups';
import type { DashboardContext, Query } from '../context';
import { param } from '../context';
import { callPoints, renderCallTrends } from '../call-trends';
import { renderDiff } from '../diff';
import { fmtDuration, fmtInt, fmtTime, fmtTokens, fmtUsd, isoTime } from '../format';
import { href, html, type Html } from '../html';
import { summarize } from './describe';
import { renderWaterfall, waterfallRows } from '../waterfall';
import type { Page, PageContent } from '../page';
import { queryUsage } from '../../store/queries/usage';
import { totalTokens } from '../../model/usage';

export const timelinePage: Page = { name: 'timeline', path: '/session', nav: { under: 'sessions' }, render: renderTimeline };

const OBSERVERS: [Observer, string, string][] = [
  ['pre-tool', 'pre-tool hook', "the agent ran Beacon's hook before the call"],
  ['post-tool', 'post-tool hook', 'the post-tool hook reported the result'],
  ['otlp', 'OTLP', "the agent's OpenTelemetry export reported the call (a span or a log record)"],
  ['stream', 'stream', "the agent's headless JSON stream reported the call (beacon stream)"],
  ['poll', 'import', "beacon import read it from the agent's own session store"],
  ['policy', 'policy', 'the policy provider judged the call'],
];
const IDLE_GAP_NS = 5n * 60n * 1_000_000_000n;

async function renderTimeline(ctx: DashboardContext, q: Query): Promise<PageContent> {
  const id = param(q, 'id');
  if (id === undefined) return { title: 'Session', status: 400, body: html`<h1>Session</h1><p class="bad">No session id: open a session from the <a href="/sessions">sessions list</a>.</p>` };
  const after = parseCursor(param(q, 'after'));
  const page = sessionTimeline(ctx.db, id, { after, limit: 2000 });
  if (page.items.length === 0 && !after) return { title: 'Session', status: 404, body: html`<h1>Session <code>${id}</code></h1><p class="bad">No events of this session are in the log (retention may have removed them).</p>` };

  const pricer = new UsagePricer(ctx.catalog, ctx.overrides);
  const usage = pricer.total(queryUsage(ctx.db, { sessionId: id }, 'model'));
  const first = page.items[0];
  const firstNs = first ? (first.kind === 'event' ? first.event.tsNs : first.firstNs) : 0n;
  const calls = page.items.filter((i): i is ToolCallRow => i.kind === 'tool_call');
  const origin = sessionOrigin(ctx.db, id);
  // goose's own session total (its stream-json `complete`) beside the per-call sums: compaction has no span.
  const reported = sessionTotal(ctx.db, id, usage.calls, totalTokens(usage));

  let prev: bigint | undefined;
  const rows: Html[] = [];
  const depth = spanDepths(page.items);
  const longest = Math.max(1, ...page.items.map((i) => durationOf(i) ?? 0));
  for (const item of page.items) {
    const ts = item.kind === 'event' ? item.event.tsNs : item.firstNs;
    if (prev !== undefined && ts - prev > IDLE_GAP_NS) rows.push(html`<li class="gap">— ${fmtDuration(ts - prev)} without events —</li>`);
    prev = ts;
    const shape = { depth: depth.get(item) ?? 0, took: took(durationOf(item), longest) };
    rows.push(item.kind === 'tool_call' ? toolRow(item, shape) : eventRow(item, shape));
  }
  // the waterfall's origin is the session's first event (the first page's), so later pages keep its offsets
  const opening = after ? (sessionTimeline(ctx.db, id, { limit: 1 }).items[0] as TimelineItem | undefined) : undefined;
  const startNs = opening ? (opening.kind === 'event' ? opening.event.tsNs : opening.firstNs) : firstNs;
  const bars = waterfallRows(page.items, startNs);
  const trends = await renderCallTrends(callPoints(page.items, startNs, pricer), { width: 540 });
  const failed = calls.filter((c) => c.failed).length;
  const denied = calls.filter((c) => c.denied).length;
  const unfinished = calls.filter((c) => c.unfinished && !c.denied).length;
  const body = html`<h1>Session <code>${id}</code></h1>
<div class="cards">
<div class="card"><dl class="kv">
<dt>started</dt><dd>${fmtTime(firstNs)} UTC</dd>
<dt>repository</dt><dd>${origin.repository ?? html`<span class="muted">not recorded</span>`}${origin.branch ? html` <span class="badge">${origin.branch}</span>` : ''}</dd>
<dt>harness</dt><dd>${origin.harness ?? '—'}</dd>
<dt>events</dt><dd>${fmtInt(page.events)}${page.next ? ' on this page' : ''}</dd>
</dl></div>
<div class="card"><dl class="kv">
<dt>model calls</dt><dd>${fmtInt(usage.calls)}</dd>
<dt>tokens</dt><dd>${fmtTokens(usage.input)} in · ${fmtTokens(usage.output)} out · ${fmtTokens(usage.cacheRead)} cache read · ${fmtTokens(usage.cacheWrite)} cache write</dd>
${reported ? html`<dt>goose's own total</dt><dd id="session-total">${fmtTokens(reported.reported_total_tokens)} reported; difference ${fmtTokens(reported.unspanned_tokens)}: ${reported.note}</dd>` : ''}
<dt>reported cost</dt><dd>${fmtUsd(usage.reportedCost)}</dd>
<dt>list-price estimate</dt><dd>${fmtUsd(usage.estimatedCost)}${usage.unpricedCalls ? html` <span class="warn">(unpriced: ${usage.unpricedModels.join(', ')})</span>` : ''}</dd>
</dl></div>
<div class="card"><dl class="kv">
<dt>tool calls</dt><dd>${fmtInt(calls.length)}</dd>
<dt>failed</dt><dd class="${failed ? 'bad' : ''}">${failed}</dd>
<dt>denied</dt><dd class="${denied ? 'bad' : ''}">${denied}</dd>
<dt>without a result</dt><dd class="${unfinished ? 'warn' : ''}">${unfinished}</dd>
</dl></div>
</div>
<p><a href="${href('/events', { session: id })}">all events of this session</a> · <a href="${href('/tokens', { session: id, since: 'all' })}">its tokens and cost</a></p>
<h2>Waterfall</h2>
<p class="muted">Model calls, tool calls and agent turns from the session's start, nested as the agent's spans nest; a bar is as long as the call took (a mark: no path reported a duration).</p>
${await renderWaterfall(bars)}
${trends}
<h2>Timeline</h2>
<ol class="timeline">${rows}</ol>
${page.next ? html`<p class="pager"><a href="${href('/session', { id, after: `${page.next.tsNs}.${page.next.seq}` })}">later events →</a></p>` : ''}`;
  return { title: `Session ${id}`, body };
}

function when(ns: bigint): Html {
  return html`<time datetime="${isoTime(ns)}">${fmtTime(ns).slice(11)}</time>`;
}

/** Where a row sits in its trace, and how long it took (issue 24 item 11). */
interface RowShape {
  depth: number;
  took: Html | '';
}

const nest = (s: RowShape) => `depth-${Math.min(s.depth, 6)}`;

function eventRow(item: Extract<TimelineItem, { kind: 'event' }>, shape: RowShape): Html {
  const { event: ev, record: r } = item;
  if (ev.action === 'prompt.submitted') {
    return html`<li class="prompt" data-action="prompt.submitted"><div class="row-head">${when(ev.tsNs)}<span class="what">Prompt</span><span class="badge">${ev.method}</span></div>
${r.prompt?.text !== undefined ? html`<pre class="prompt-text">${r.prompt.text}</pre>` : html`<p class="muted">prompt text not recorded</p>`}</li>`;
  }
  if (ev.action === 'model.invoked') {
    const u = r.gen_ai?.usage ?? {};
    const finish = r.gen_ai?.response?.finish_reasons;
    const answer = outputText(r.gen_ai?.output?.messages);
    return html`<li class="model ${nest(shape)}" data-action="model.invoked" data-depth="${shape.depth}"><div class="row-head">${when(ev.tsNs)}<span class="what">Model call</span><code>${r.model ?? '?'}</code>${shape.took}
<span class="muted">${r.gen_ai?.provider?.name ?? ''}</span>
<span>${fmtInt(u.input_tokens ?? 0)} in · ${fmtInt(u.output_tokens ?? 0)} out · ${fmtInt(u.cache_read?.input_tokens ?? 0)} cache read · ${fmtInt(u.cache_creation?.input_tokens ?? 0)} cache write${u.reasoning?.output_tokens ? ` · ${fmtInt(u.reasoning.output_tokens)} reasoning` : ''}</span>
${Array.isArray(finish) && finish.length ? html`<span class="badge">finish: ${finish.join(', ')}</span>` : ''}<span class="badge">${ev.method}</span></div>
${r.reasoning?.text ? html`<details><summary>reasoning</summary><pre>${r.reasoning.text}</pre></details>` : ''}
${answer ? html`<details open><summary>answer</summary><pre>${answer}</pre></details>` : ''}</li>`;
  }
  if (ev.action === 'agent.message' || ev.action === 'agent.reasoning' || ev.action === 'agent.error') {
    const text = ev.action === 'agent.message' ? outputText(r.gen_ai?.output?.messages) : ev.action === 'agent.reasoning' ? r.reasoning?.text : r.message;
    const what = { 'agent.message': 'Agent', 'agent.reasoning': 'Reasoning', 'agent.error': 'Agent error' }[ev.action];
    return html`<li class="${ev.action === 'agent.error' ? 'tool failed' : 'model'}" data-action="${ev.action}"><div class="row-head">${when(ev.tsNs)}<span class="what">${what}</span>${r.model ? html`<code>${r.model}</code>` : ''}<span class="badge">${ev.method}</span></div>
${text ? (ev.action === 'agent.reasoning' ? html`<details><summary>reasoning</summary><pre>${text}</pre></details>` : html`<pre>${text}</pre>`) : ''}</li>`;
  }
  if (ev.action === 'tool.completed' && typeof r.response?.text === 'string') {
    return html`<li class="model" data-action="tool.completed"><div class="row-head">${when(ev.tsNs)}<span class="what">Final answer</span><span class="badge">${ev.method}</span></div><pre class="answer">${r.response.text}</pre></li>`;
  }
  const label: Record<string, string> = { 'session.started': 'Session started', 'session.ended': 'Session ended', 'tool.completed': 'Agent response completed', 'usage.reported': 'Usage reported' };
  return html`<li class="other ${nest(shape)}" data-action="${ev.action}" data-depth="${shape.depth}"><div class="row-head">${when(ev.tsNs)}<span class="what">${label[ev.action] ?? ev.action}</span><span class="muted">${summarize(ev.action, r)}</span><span class="badge">${ev.method}</span></div></li>`;
}

function toolRow(c: ToolCallRow, shape: RowShape): Html {
  const pick = (f: (r: Record<string, any>) => unknown) => {
    // The hook's post-tool view is the richest (exit code, diff); then OTLP, stream, the store's (import), pre-tool.
    const order: Observer[] = ['post-tool', 'otlp', 'stream', 'poll', 'pre-tool', 'policy'];
    for (const o of order) for (const ob of c.observations) if (ob.observer === o && f(ob.record) !== undefined) return f(ob.record);
    return undefined;
  };
  const command = pick((r) => r.command?.command) as string | undefined;
  const exit = pick((r) => r.command?.exit_code) as number | undefined;
  const path = pick((r) => r.file?.path) as string | undefined;
  const op = pick((r) => r.file?.operation) as string | undefined;
  const diff = pick((r) => r.file?.diff) as string | undefined;
  const mcp = pick((r) => r.mcp) as { server?: string; tool?: string } | undefined;
  const output = pick((r) => r.command?.output) as string | undefined;
  const denial = c.observations.find((o) => o.observer === 'policy')?.record;
  const cls = ['tool', c.failed ? 'failed' : '', c.denied ? 'denied' : '', nest(shape)].filter(Boolean).join(' ');
  const kind = c.action ?? 'tool call';
  const seen = OBSERVERS.map(([o, label, tip]) =>
    c.seenBy.includes(o) ? html`<span class="badge ok" data-seen="${o}" title="${tip}">${label}</span>` : o === 'policy' ? '' : html`<span class="badge off" data-missing="${o}" title="not seen by this path">${label}</span>`,
  );
  return html`<li class="${cls}" data-action="tool_call" data-call-id="${c.callId ?? ''}" data-depth="${shape.depth}"><div class="row-head">${when(c.firstNs)}<span class="what">${c.toolName ?? 'tool'}</span><span class="muted">${kind}</span>${shape.took}
${c.denied ? html`<span class="badge bad">denied</span>` : c.failed ? html`<span class="badge bad">failed</span>` : ''}<span class="seen">${seen}</span></div>
${command !== undefined ? html`<pre class="command">$ ${command}</pre>` : ''}
${exit !== undefined ? html`<div>exit code <span class="badge ${exit === 0 ? 'ok' : 'bad'}" data-exit="${exit}">${exit}</span></div>` : ''}
${output ? html`<details><summary>output</summary><pre>${output}</pre></details>` : ''}
${path !== undefined ? html`<div>${op ?? 'file'} <code class="path">${path}</code></div>` : ''}
${diff !== undefined ? renderDiff(diff) : ''}
${mcp ? html`<div>MCP server <code>${mcp.server ?? '?'}</code> tool <code>${mcp.tool ?? '?'}</code></div>` : ''}
${denial ? html`<p class="note bad">Denied by policy${denial.policy?.name ? html` hook <code>${denial.policy.name}</code>` : ''}${denial.policy?.id ? html` rule <code>${denial.policy.id}</code>` : ''}: ${denial.policy?.reason ?? denial.approval?.reason ?? ''}</p>` : ''}
${c.unfinished && !c.denied ? html`<p class="note">Only the pre-tool hook saw this call: no result was recorded (denied by the agent, still running, or never finished).</p>` : ''}
<details><summary>${c.observations.length} observation${c.observations.length === 1 ? '' : 's'}${c.callId ? html` of call <code>${c.callId}</code>` : ''}</summary>
${c.observations.map((o) => html`<div class="muted">${o.observer} · ${o.event.action} · ${fmtTime(o.event.tsNs)}</div><pre>${JSON.stringify(o.record, null, 2)}</pre>`)}</details></li>`;
}

/** The records of an item: an event's, or every observation of a call. */
const recordsOf = (i: TimelineItem): Record<string, any>[] => (i.kind === 'event' ? [i.record] : i.observations.map((o) => o.record));

/** How long a model or tool call took: the span's duration (gen_ai.duration_ms) or a shell's. */
function durationOf(i: TimelineItem): number | undefined {
  for (const r of recordsOf(i)) {
    const ms = r.gen_ai?.duration_ms ?? r.command?.duration_ms;
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return ms;
  }
  return undefined;
}

/** A bar as long as the call took against the page's longest (SVG attributes: the CSP allows no inline style). */
function took(ms: number | undefined, longest: number): Html | '' {
  if (ms === undefined) return '';
  const pct = Math.max(0.5, (100 * ms) / longest);
  return html`<span class="took" data-ms="${Math.round(ms)}" title="${`took ${fmtDuration(BigInt(Math.round(ms)) * 1_000_000n)}`}"><svg class="took-bar" viewBox="0 0 100 8" preserveAspectRatio="none"><rect width="${pct.toFixed(1)}" height="8"></rect></svg>${fmtDuration(BigInt(Math.round(ms)) * 1_000_000n)}</span>`;
}

/**
 * The tree of the session's spans, as Phoenix shows a trace: an item whose span's parent is another
 * item of the page sits one level under it (a tool call under the model call or the agent step that
 * ran it). Items without span ids (hooks, stream) stay at the top level.
 */
function spanDepths(items: readonly TimelineItem[]): Map<TimelineItem, number> {
  const spanOf = (i: TimelineItem) => recordsOf(i).map((r) => r.trace).find((t) => typeof t?.span_id === 'string');
  const bySpan = new Map<string, TimelineItem>();
  for (const i of items) {
    const t = spanOf(i);
    if (t) bySpan.set(t.span_id, i);
  }
  const depths = new Map<TimelineItem, number>();
  const depthOf = (i: TimelineItem, guard = 0): number => {
    if (depths.has(i)) return depths.get(i)!;
    const parent = spanOf(i)?.parent_span_id;
    const up = typeof parent === 'string' ? bySpan.get(parent) : undefined;
    const d = up && up !== i && guard < 32 ? depthOf(up, guard + 1) + 1 : 0;
    depths.set(i, d);
    return d;
  };
  for (const i of items) depthOf(i);
  return depths;
}

/** The text parts of captured output messages (goose exports them only with its capture opt-in). */
function outputText(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const texts: string[] = [];
  for (const m of messages) {
    const parts = (m as any)?.parts;
    if (Array.isArray(parts)) for (const p of parts) if (p?.type === 'text' && typeof p.content === 'string') texts.push(p.content);
    if (typeof (m as any)?.content === 'string') texts.push((m as any).content);
  }
  return texts.length ? texts.join('\n') : undefined;
}

export function parseCursor(v: string | undefined): { tsNs: bigint; seq: bigint } | undefined {
  const m = v === undefined ? null : /^(\d{1,20})\.(\d{1,20})$/.exec(v);
  return m ? { tsNs: BigInt(m[1]!), seq: BigInt(m[2]!) } : undefined;
}
