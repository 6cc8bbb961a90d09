/* eslint-disable @typescript-eslint/no-explicit-any */
import { UsagePricer } from '../../pricing/usage-groups';
import { lastEventByMethod, needsAttention, RECENT_WINDOW } from '../../store/queries/overview';
import type { DashboardContext } from '../context';
import { fmtBytes, fmtDuration, fmtInt, fmtTime, fmtTokens, fmtUsd } from '../format';
import { href, html } from '../html';
import { summarize } from './describe';
import type { Page, PageContent } from '../page';
import { queryUsage } from '../../store/queries/usage';

export const overviewPage: Page = { name: 'overview', path: '/', nav: { label: 'Overview' }, render: renderOverview };

const DAY_NS = 86_400_000_000_000n;

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
/**
 * Needs attention's kinds, worded as the Sessions page counts them (a failed shell call is a failed
 * command there and on the timeline), each with what it means: a failed command is the command's
 * own outcome (a failing test, a missing file), which the agent reads and answers — no setup problem.
 */
const ATTENTION_KINDS = [
  { key: 'command.failed', events: 'command.executed', label: (n: number) => `${plural(n, 'command', 'commands')} failed`, advice: "a command that exited non-zero or could not run (the command's own outcome, which the agent saw: nothing to set up)" },
  { key: 'tool.failed', events: 'tool.failed', label: (n: number) => `${plural(n, 'tool call', 'tool calls')} failed`, advice: "a tool call that failed (the tool's error is in the session)" },
  { key: 'approval.denied', events: 'approval.denied', label: (n: number) => `${n} denied`, advice: 'a call a policy denied (its reason is in the session)' },
] as const;

function renderOverview(ctx: DashboardContext): PageContent {
  const health = ctx.health();
  const nowNs = BigInt(ctx.nowMs) * 1_000_000n;
  const todayNs = BigInt(Date.UTC(new Date(ctx.nowMs).getUTCFullYear(), new Date(ctx.nowMs).getUTCMonth(), new Date(ctx.nowMs).getUTCDate())) * 1_000_000n;
  // One read of the usage index for 30 days, by day; today and 7 days are sums of its rows.
  const rows = queryUsage(ctx.db, { sinceNs: nowNs - 30n * DAY_NS }, 'day');
  const pricer = new UsagePricer(ctx.catalog, ctx.overrides);
  // Calendar groups are quarter-hour indexes (ns / 15 min).
  const quarter = (ns: bigint) => Number(ns / 900_000_000_000n);
  const today = quarter(todayNs);
  const week = quarter(todayNs - 6n * DAY_NS);
  const periods = [
    ['today', pricer.total(rows.filter((r) => Number(r.grp) >= today))],
    ['7 days', pricer.total(rows.filter((r) => Number(r.grp) >= week))],
    ['30 days', pricer.total(rows)],
  ] as const;
  const last = lastEventByMethod(ctx.db);
  const attention = needsAttention(ctx.db, { sinceNs: nowNs - 7n * DAY_NS, limit: 15 });
  const status = String(health.status ?? 'unknown');
  const statusClass = status === 'ok' ? 'ok' : status === 'degraded' || status === 'stopping' ? 'warn' : 'bad';
  const threads = (health.threads ?? {}) as Record<string, { state?: string; restarts?: number; lastError?: { message?: string } }>;
  const log = (health.log ?? {}) as { path?: string; bytes?: number };
  const queue = (health.queue ?? {}) as { exports?: number; bytes?: number };
  const lastError = health.lastError as { message?: string; at?: string } | undefined;
  const forward = Array.isArray(health.forward) ? (health.forward as any[]) : [];
  const ago = (ns: bigint | undefined) => (ns === undefined ? html`<span class="muted">none among the newest ${fmtInt(RECENT_WINDOW)} events</span>` : html`${fmtTime(ns)} UTC <span class="muted">(${nowNs > ns ? `${fmtDuration(nowNs - ns)} ago` : 'now'})</span>`);

  const body = html`<h1>Overview</h1>
<div class="cards">
<div class="card" id="health"><h2>Collector <span class="badge ${statusClass}" data-status="${status}">${status}</span></h2>
<dl class="kv">
<dt>version</dt><dd>${health.version ?? '—'}${health.pid !== undefined ? html` <span class="muted">pid ${health.pid}</span>` : ''}</dd>
<dt>event log</dt><dd><code>${log.path ?? ctx.logPath}</code>${log.bytes !== undefined ? html` · ${fmtBytes(Number(log.bytes))}` : ''}</dd>
<dt>retention</dt><dd>${ctx.retention.maxAgeDays ? `${ctx.retention.maxAgeDays} days` : 'no age limit'} · ${ctx.retention.maxBytes ? fmtBytes(ctx.retention.maxBytes) : 'no size limit'}</dd>
<dt>queue</dt><dd>${queue.exports ?? health.pending_exports ?? 0} exports${queue.bytes !== undefined ? ` · ${fmtBytes(Number(queue.bytes))}` : ''}</dd>
${Object.entries(threads).map(([name, t]) => html`<dt>${name} thread</dt><dd><span class="badge ${t.state === 'failed' ? 'bad' : t.state === 'restarting' ? 'warn' : ''}">${t.state ?? '?'}</span>${t.restarts ? ` ${t.restarts} restarts` : ''}${t.lastError?.message ? html` <span class="bad">${t.lastError.message}</span>` : ''}</dd>`)}
${lastError?.message ? html`<dt>last error</dt><dd class="bad">${lastError.message}${lastError.at ? html` <span class="muted">${lastError.at}</span>` : ''}</dd>` : ''}
<dt>exports received</dt><dd>${fmtInt(Number(health.exports ?? 0))} · ${fmtInt(Number(health.inserted ?? 0))} events stored since start</dd>
</dl></div>
<div class="card" id="paths"><h2>Last event per collection path</h2><dl class="kv">
<dt>OTLP</dt><dd data-method="otlp">${ago(last.otlp)}</dd><dt>hooks</dt><dd data-method="hook">${ago(last.hook)}</dd><dt>stream</dt><dd data-method="stream">${ago(last.stream)}</dd>
</dl>
${forward.length ? html`<h2>Forwarding</h2><dl class="kv">${forward.map((f) => html`<dt>${f.name ?? f.type}</dt><dd>${f.lastError ? html`<span class="bad">${typeof f.lastError === 'string' ? f.lastError : f.lastError?.message}</span> · ` : ''}lag ${fmtInt(Number(f.lagRecords ?? 0))} records${f.lastSuccessAt ? ` · last success ${f.lastSuccessAt}` : ''}</dd>`)}</dl>` : html`<p class="muted">No forwarding configured: nothing leaves this machine.</p>`}
</div>
</div>
<h2>Tokens and estimated cost</h2>
<table id="usage-periods"><thead><tr><th></th><th class="n">model calls</th><th class="n">input</th><th class="n">output</th><th class="n">cache read</th><th class="n">cache write</th><th class="n">reported by runtime</th><th class="n">list-price estimate</th></tr></thead><tbody>
${periods.map(([label, g]) => html`<tr data-period="${label}"><td><a href="${href('/tokens', { since: label === 'today' ? '24h' : label === '7 days' ? '7d' : '30d' })}">${label}</a></td><td class="n">${fmtInt(g.calls)}</td><td class="n">${fmtTokens(g.input)}</td><td class="n">${fmtTokens(g.output)}</td><td class="n">${fmtTokens(g.cacheRead)}</td><td class="n">${fmtTokens(g.cacheWrite)}</td><td class="n">${fmtUsd(g.reportedCost)}</td><td class="n">${fmtUsd(g.estimatedCost)}${g.unpricedCalls ? html` <span class="warn">(${fmtInt(g.unpricedCalls)} unpriced: ${g.unpricedModels.join(', ')})</span>` : ''}</td></tr>`)}
</tbody></table>
<h2>Needs attention <span class="muted">(last 7 days)</span></h2>
<p>${ATTENTION_KINDS.filter((k) => attention.counts[k.key]).map((k) => html`<a class="badge bad" data-kind="${k.key}" href="${href('/events', { action: k.events, since: '7d' })}">${k.label(attention.counts[k.key]!)}</a> `)}${Object.keys(attention.counts).length ? '' : html`<span class="ok">No denied or failed tool calls.</span>`}
<span class="muted">${Object.keys(attention.counts).length ? `What the agents reported: ${ATTENTION_KINDS.filter((k) => attention.counts[k.key]).map((k) => k.advice).join('; ')}. Open the session to see the turn around it.` : ''} An agent whose events stop arriving is what <code>beacon doctor &lt;agent&gt;</code> checks.</span></p>
${attention.items.length ? html`<table id="attention"><thead><tr><th>time (UTC)</th><th>agent</th><th>what</th><th>session</th><th></th></tr></thead><tbody>
${attention.items.map((a) => {
  let r: Record<string, any> = {};
  try { r = JSON.parse(a.record); } catch { /* shown as is */ }
  return html`<tr><td>${fmtTime(a.tsNs)}</td><td>${a.harness}</td><td><span class="badge bad">${a.command ? 'command failed' : a.action === 'approval.denied' ? 'denied' : 'tool call failed'}</span></td><td>${a.sessionId ? html`<a href="${href('/session', { id: a.sessionId })}"><code>${a.sessionId}</code></a>` : '—'}</td><td>${summarize(a.action, r)}</td></tr>`;
})}</tbody></table>` : ''}`;
  return { title: 'Overview', body };
}
