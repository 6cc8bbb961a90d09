import { harnessOption } from '../../model/harness';
import { parseTimeBound } from '../../model/time';
import { UsagePricer } from '../../pricing/usage-groups';
import { AGENT_HARNESSES } from '../../sources/agent-harnesses';
import { listSessions, SESSION_SORTS, type SessionSort } from '../../store/queries/sessions';
import type { DashboardContext, Query } from '../context';
import { param } from '../context';
import { fmtDuration, fmtInt, fmtTime, fmtTokens, fmtUsd } from '../format';
import { href, html, type Html } from '../html';
import type { Page, PageContent } from '../page';

export const sessionsPage: Page = { name: 'sessions', path: '/sessions', nav: { label: 'Sessions' }, render: renderSessions };

const PAGE = 30;
export const SINCE_CHOICES: [string, string][] = [['24h', 'last 24 hours'], ['7d', 'last 7 days'], ['30d', 'last 30 days'], ['90d', 'last 90 days'], ['all', 'all time']];

/** `since`/`until` from the URL: a duration (`7d`), an RFC 3339 time, or `all`. */
export function timeWindow(q: Query, nowMs: number, defaultSince = '7d'): { since: string; sinceNs?: bigint; untilNs?: bigint; error?: string } {
  const since = param(q, 'since') ?? defaultSince;
  const until = param(q, 'until');
  const out: { since: string; sinceNs?: bigint; untilNs?: bigint; error?: string } = { since };
  if (since !== 'all') {
    const t = parseTimeBound(since, { now: nowMs, utc: true });
    if ('ns' in t) out.sinceNs = t.ns;
    else out.error = `"since": ${t.error}`;
  }
  if (until !== undefined) {
    const t = parseTimeBound(until, { now: nowMs, utc: true });
    if ('ns' in t) out.untilNs = t.ns;
    else out.error = `"until": ${t.error}`;
  }
  return out;
}

export function sinceSelect(current: string): Html {
  const known = SINCE_CHOICES.some(([v]) => v === current);
  return html`<label>time<select name="since">${SINCE_CHOICES.map(([v, l]) => html`<option value="${v}"${v === current ? html` selected` : ''}>${l}</option>`)}${known ? '' : html`<option value="${current}" selected>since ${current}</option>`}</select></label>`;
}

function renderSessions(ctx: DashboardContext, q: Query): PageContent {
  const w = timeWindow(q, ctx.nowMs);
  const repository = param(q, 'repository');
  const model = param(q, 'model');
  const agent = param(q, 'harness');
  const harness = agent ? harnessOption(agent) : undefined; // `claude` means claude-code, as on the CLI
  const sortParam = param(q, 'sort');
  const sort: SessionSort = SESSION_SORTS.includes(sortParam as SessionSort) ? (sortParam as SessionSort) : 'end';
  const desc = param(q, 'dir') !== 'asc';
  const offset = Math.max(0, Number(param(q, 'offset') ?? 0) | 0);
  if (w.error) return { title: 'Sessions', status: 400, body: html`<h1>Sessions</h1><p class="bad">${w.error}</p>` };

  const page = listSessions(ctx.db, { sinceNs: w.sinceNs, untilNs: w.untilNs, repository, model, harness }, { sort, desc, limit: PAGE, offset, detailCache: ctx.sessionDetails });
  const pricer = new UsagePricer(ctx.catalog, ctx.overrides);
  const keep = { since: w.since, until: param(q, 'until'), repository, model, harness };
  const th = (label: string, key: SessionSort, numeric = false) => {
    const active = key === sort;
    const dir = active && desc ? 'asc' : 'desc';
    return html`<th class="${numeric ? 'n' : ''}"><a href="${href('/sessions', { ...keep, sort: key, dir })}" data-sort="${key}">${label}${active ? (desc ? ' ▼' : ' ▲') : ''}</a></th>`;
  };
  const rows = page.sessions.map((s) => {
    const cost = pricer.total(s.usage);
    const models = [...new Set(s.usage.map((u) => u.model ?? '?'))];
    const d = s.detail!;
    const tools = Object.entries(d.toolCalls).sort((a, b) => b[1] - a[1]);
    return html`<tr data-session="${s.id}">
<td><a href="${href('/session', { id: s.id })}"><code>${s.id.length > 40 ? `${s.id.slice(0, 40)}…` : s.id}</code></a></td>
<td class="when">${when(s.firstNs)}</td><td class="when">${when(s.lastNs)}</td><td class="n">${fmtDuration(s.lastNs - s.firstNs)}</td>
<td>${s.harness ?? '—'}<div class="sub">${d.methods.join(', ')}</div></td>
<td>${s.repository ? html`<a href="${href('/sessions', { ...keep, repository: s.repository })}"><code>${s.repository}</code></a>` : html`<span class="muted">—</span>`}${s.branch ? html` <span class="badge">${s.branch}</span>` : ''}</td>
<td class="models">${models.map((m) => html`<a class="badge" href="${href('/sessions', { ...keep, model: m })}">${m}</a>`)}</td>
<td class="n">${fmtInt(s.modelCalls)}</td>
<td class="tools">${tools.length ? tools.map(([k, n]) => html`<span class="badge">${k} ${n}</span>`) : html`<span class="muted">none</span>`}</td>
<td class="n failures">${d.failedCalls ? html`${d.failedCommands ? html`<div class="bad sub" data-failed="commands">${d.failedCommands} command${d.failedCommands === 1 ? '' : 's'} failed</div>` : ''}${d.failedCalls - d.failedCommands ? html`<div class="bad sub" data-failed="tools">${d.failedCalls - d.failedCommands} tool call${d.failedCalls - d.failedCommands === 1 ? '' : 's'} failed</div>` : ''}` : '0'}${d.deniedCalls ? html`<div class="bad">${d.deniedCalls} denied</div>` : ''}</td>
<td class="n">${fmtTokens(s.tokens)}</td><td class="n reported">${fmtUsd(cost.reportedCost)}</td><td class="n">${fmtUsd(cost.estimatedCost)}${cost.unpricedCalls ? html`<div class="sub warn">unpriced: ${cost.unpricedModels.join(', ')}</div>` : ''}</td>
<td class="n">${fmtInt(s.events)}</td></tr>`;
  });
  const body = html`<h1>Sessions</h1>
<form class="filters" method="get" action="/sessions">
${sinceSelect(w.since)}
<label>repository<input name="repository" value="${repository ?? ''}" placeholder="/path/to/repo"></label>
<label>model<input name="model" value="${model ?? ''}" placeholder="claude-sonnet-4-5"></label>
${agentSelect(harness)}
<input type="hidden" name="sort" value="${sort}"><input type="hidden" name="dir" value="${desc ? 'desc' : 'asc'}">
<button type="submit">Apply</button> <a href="/sessions">reset</a>
</form>
<p class="muted">${fmtInt(page.total)} session${page.total === 1 ? '' : 's'} with events in the window. Tokens and costs count the window's model calls; costs: reported = what the runtime itself reported, estimate = list-price estimate from Beacon's price catalog.</p>
<table id="sessions"><thead><tr><th>session</th>${th('start', 'start')}${th('end', 'end')}${th('duration', 'duration', true)}<th>harness · paths</th><th>repository</th><th>models</th>${th('model calls', 'model_calls', true)}<th>tool calls</th><th class="n">failures</th>${th('tokens', 'tokens', true)}<th class="n reported">reported</th><th class="n">estimate</th>${th('events', 'events', true)}</tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="14" class="muted">No sessions in this window.</td></tr>`}</tbody></table>
<div class="pager">${offset > 0 ? html`<a href="${href('/sessions', { ...keep, sort, dir: desc ? 'desc' : 'asc', offset: Math.max(0, offset - PAGE) })}">← previous</a>` : ''}
<span class="muted">${page.total ? `${offset + 1}–${Math.min(offset + PAGE, page.total)} of ${page.total}` : ''}</span>
${offset + PAGE < page.total ? html`<a href="${href('/sessions', { ...keep, sort, dir: desc ? 'desc' : 'asc', offset: offset + PAGE })}" rel="next">next →</a>` : ''}</div>`;
  return { title: 'Sessions', body };
}

/** the agent filter (issue 33): every agent Beacon reads, and a value from the URL it does not know kept as chosen */
export function agentSelect(harness: string | undefined): Html {
  return html`<label>agent<select name="harness"><option value="">any</option>${AGENT_HARNESSES.map((h) => html`<option value="${h}"${h === harness ? html` selected` : ''}>${h}</option>`)}${harness && !AGENT_HARNESSES.includes(harness) ? html`<option value="${harness}" selected>${harness}</option>` : ''}</select></label>`;
}

/** a date over its time, each unbroken: the table fits a 1024 px window (issue 24 item 6) */
function when(ns: bigint): Html {
  const [date, time] = fmtTime(ns).split(' ');
  return html`<span>${date}</span> <span>${time ?? ''}</span>`;
}
