import { SEARCH_SCAN_BUDGET, searchEvents, type EventSearch } from '../../store/queries/event-search';
import type { DashboardContext, Query } from '../context';
import { param } from '../context';
import { fmtInt, fmtTime, isoTime } from '../format';
import { href, html } from '../html';
import { summarize } from './describe';
import { sinceSelect, timeWindow } from './sessions';
import { parseCursor } from './timeline';
import type { Page, PageContent } from '../page';
import { AGENT_HARNESSES } from '../../sources/agent-harnesses';

export const eventsPage: Page = { name: 'events', path: '/events', nav: { label: 'Events' }, render: renderEvents };

const ACTIONS = ['prompt.submitted', 'model.invoked', 'tool.invoked', 'command.executed', 'file.modified', 'file.read', 'mcp.tool_invoked', 'tool.failed', 'approval.denied', 'session.started', 'session.ended', 'tool.completed', 'usage.reported'];
const METHODS = ['otlp', 'hook', 'stream', 'poll'];
const PAGE = 50;

/** The search in the URL → the query layer's filter (shared by the page and the JSONL download). */
export function eventSearchOf(q: Query, nowMs: number): { search: EventSearch; keep: Record<string, string | undefined>; error?: string } {
  const w = timeWindow(q, nowMs, 'all');
  const search: EventSearch = {
    q: param(q, 'q'), action: param(q, 'action'), method: param(q, 'method'), harness: param(q, 'harness'), sessionId: param(q, 'session'), model: param(q, 'model'), tool: param(q, 'tool'),
    sinceNs: w.sinceNs, untilNs: w.untilNs,
  };
  const keep = { q: search.q, action: search.action, method: search.method, harness: search.harness, session: search.sessionId, model: search.model, tool: search.tool, since: w.since === 'all' ? undefined : w.since, until: param(q, 'until') };
  return { search, keep, error: w.error };
}

function renderEvents(ctx: DashboardContext, q: Query): PageContent {
  const { search, keep, error } = eventSearchOf(q, ctx.nowMs);
  if (error) return { title: 'Events', status: 400, body: html`<h1>Events</h1><p class="bad">${error}</p>` };
  const before = parseCursor(param(q, 'before'));
  const page = searchEvents(ctx.db, search, { before, limit: PAGE });
  const select = (name: string, label: string, values: string[], current: string | undefined) =>
    html`<label>${label}<select name="${name}"><option value="">any</option>${values.map((v) => html`<option value="${v}"${v === current ? html` selected` : ''}>${v}</option>`)}${current && !values.includes(current) ? html`<option value="${current}" selected>${current}</option>` : ''}</select></label>`;
  const rows = page.events.map((e) => {
    let r: Record<string, unknown> = {};
    try {
      r = JSON.parse(e.record);
    } catch {
      /* shown raw below */
    }
    const session = (r as { session?: { id?: string } }).session?.id;
    const agent = (r as { harness?: { name?: string } }).harness?.name;
    return html`<tr data-seq="${e.seq}"><td><time datetime="${isoTime(e.tsNs)}">${fmtTime(e.tsNs)}</time></td><td><a href="${href('/events', { ...keep, action: e.action })}">${e.action}</a></td><td>${agent ? html`<a href="${href('/events', { ...keep, harness: agent })}">${agent}</a>` : '—'}</td><td>${e.method}</td>
<td>${session ? html`<a href="${href('/session', { id: session })}"><code>${session.length > 24 ? `${session.slice(0, 24)}…` : session}</code></a>` : '—'}</td>
<td>${summarize(e.action, r)}<details><summary>event</summary><pre>${JSON.stringify(r, null, 2)}</pre></details></td></tr>`;
  });
  const body = html`<h1>Events</h1>
<form class="filters" method="get" action="/events">
<label>search<input name="q" type="search" value="${search.q ?? ''}" placeholder="text in any field"></label>
${select('action', 'action', ACTIONS, search.action)}
${select('harness', 'agent', [...AGENT_HARNESSES], search.harness)}
${select('method', 'collection path', METHODS, search.method)}
<label>session<input name="session" value="${search.sessionId ?? ''}"></label>
<label>model<input name="model" value="${search.model ?? ''}"></label>
<label>tool<input name="tool" value="${search.tool ?? ''}" placeholder="developer__shell"></label>
${sinceSelect(keep.since ?? 'all')}
<button type="submit">Search</button> <a href="/events">reset</a>
<a class="download" href="${href('/events.jsonl', keep)}" download="beacon-events.jsonl">download JSONL</a>
</form>
<p class="muted">Newest first, ${PAGE} per page; a page reads at most ${fmtInt(SEARCH_SCAN_BUDGET)} events of the log, so a rare match may take several pages.</p>
${page.budgetExhausted ? html`<p class="note">Read ${fmtInt(page.scanned)} events back to ${fmtTime(page.next!.tsNs)} with ${page.events.length} match${page.events.length === 1 ? '' : 'es'} so far. <a href="${href('/events', { ...keep, before: `${page.next!.tsNs}.${page.next!.seq}` })}">search older events →</a></p>` : ''}
<table id="events"><thead><tr><th>time (UTC)</th><th>action</th><th>agent</th><th>path</th><th>session</th><th>what</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="6" class="muted">No matching events${before ? ' in this range' : ''}.</td></tr>`}</tbody></table>
<div class="pager">${before ? html`<a href="${href('/events', keep)}">← newest</a>` : ''}${page.next ? html`<a href="${href('/events', { ...keep, before: `${page.next.tsNs}.${page.next.seq}` })}" rel="next">older →</a>` : html`<span class="muted">end of the log</span>`}</div>`;
  return { title: 'Events', body };
}
