import { UsagePricer, type PricedGroup } from '../../pricing/usage-groups';
import { originReader } from '../../store/queries/sessions';
import { stackedBars } from '../chart';
import type { DashboardContext, Query } from '../context';
import { param } from '../context';
import { fmtInt, fmtTokens, fmtUsd } from '../format';
import { href, html } from '../html';
import { agentSelect, sinceSelect, timeWindow } from './sessions';
import type { Page, PageContent } from '../page';
import { queryUsage } from '../../store/queries/usage';

export const tokensPage: Page = { name: 'tokens', path: '/tokens', nav: { label: 'Tokens & cost' }, render: renderTokens };

type Bucket = 'hour' | 'day' | 'week';
const BUCKETS: Bucket[] = ['hour', 'day', 'week'];

/** A quarter-hour index (queryUsage's calendar group) as a UTC hour or day label. */
function utcLabel(q: string | number | null, by: 'hour' | 'day'): string {
  const iso = new Date(Number(q) * 900_000).toISOString();
  return by === 'day' ? iso.slice(0, 10) : `${iso.slice(0, 13)}:00Z`;
}

/** ISO week of a UTC day `YYYY-MM-DD`, as `YYYY-Www`. */
export function isoWeek(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  const dow = (d.getUTCDay() + 6) % 7;
  d.setUTCDate(d.getUTCDate() - dow + 3); // the week's Thursday decides its year
  const year = d.getUTCFullYear();
  const week = 1 + Math.round((d.getTime() - Date.UTC(year, 0, 4)) / 604800000 - ((new Date(Date.UTC(year, 0, 4)).getUTCDay() + 6) % 7) / 7 + 3 / 7);
  return `${year}-W${String(Math.floor(week)).padStart(2, '0')}`;
}

async function renderTokens(ctx: DashboardContext, q: Query): Promise<PageContent> {
  const w = timeWindow(q, ctx.nowMs, '30d');
  if (w.error) return { title: 'Tokens & cost', status: 400, body: html`<h1>Tokens &amp; cost</h1><p class="bad">${w.error}</p>` };
  const bucketParam = param(q, 'bucket') as Bucket | undefined;
  const bucket: Bucket = bucketParam && BUCKETS.includes(bucketParam) ? bucketParam : w.since === '24h' ? 'hour' : 'day';
  const model = param(q, 'model');
  const session = param(q, 'session');
  const harness = param(q, 'harness');
  const filter = { sinceNs: w.sinceNs, untilNs: w.untilNs, model, sessionId: session, harness };
  const pricer = new UsagePricer(ctx.catalog, ctx.overrides);

  const timeRows = queryUsage(ctx.db, filter, bucket === 'hour' ? 'hour' : 'day');
  const byBucket = pricer.group(timeRows, (r) => (bucket === 'week' ? isoWeek(utcLabel(r.grp, 'day')) : utcLabel(r.grp, bucket)));
  const buckets = [...byBucket.values()].sort((a, b) => a.key.localeCompare(b.key));
  const byModel = pricer.group(timeRows, (r) => `${r.model ?? '(no model)'}${r.provider ? ` (${r.provider})` : ''}`);
  const byProvider = pricer.group(timeRows, (r) => r.provider ?? '(none)');
  const byAgent = pricer.group(queryUsage(ctx.db, filter, 'harness'), (r) => (r.grp === null ? '(none)' : String(r.grp)));
  const total = pricer.total(timeRows);
  const sessionRows = queryUsage(ctx.db, filter, 'session');
  const bySession = pricer.group(sessionRows, (r) => (r.grp === null ? '(none)' : String(r.grp)));
  const repoOf = new Map<string, string>();
  const originOf = originReader(ctx.db);
  for (const id of bySession.keys()) repoOf.set(id, originOf(id).repository ?? '(not recorded)');
  const byRepo = pricer.group(sessionRows, (r) => repoOf.get(r.grp === null ? '(none)' : String(r.grp)) ?? '(not recorded)');

  const keep = { since: w.since, until: param(q, 'until'), model, session, harness, bucket };
  const unpriced = [...new Set(total.unpricedModels)];
  const table = (title: string, groups: PricedGroup[], link?: (g: PricedGroup) => string, top = 0, byTokens = true) => {
    const list = byTokens ? groups.sort((a, b) => tok(b) - tok(a)) : groups;
    const shown = top ? list.slice(0, top) : list;
    return html`<h2>${title}</h2><table class="usage" data-by="${title}"><thead><tr><th>${title.replace(/^By /, '')}</th><th class="n">calls</th><th class="n">input</th><th class="n">output</th><th class="n">cache read</th><th class="n">cache write</th><th class="n">reasoning</th><th class="n">reported by runtime</th><th class="n">list-price estimate</th></tr></thead><tbody>
${shown.map((g) => html`<tr><td>${link ? html`<a href="${link(g)}">${g.key}</a>` : g.key}</td><td class="n">${fmtInt(g.calls)}</td><td class="n">${fmtTokens(g.input)}</td><td class="n">${fmtTokens(g.output)}</td><td class="n">${fmtTokens(g.cacheRead)}</td><td class="n">${fmtTokens(g.cacheWrite)}</td><td class="n">${fmtTokens(g.reasoning)}</td><td class="n">${fmtUsd(g.reportedCost)}</td><td class="n">${fmtUsd(g.estimatedCost)}${g.unpricedCalls ? html`<span class="warn" title="${`${g.unpricedCalls} calls unpriced: ${g.unpricedModels.join(', ')}`}">*</span>` : ''}</td></tr>`)}
${shown.length === 0 ? html`<tr><td colspan="9" class="muted">No model calls in this window.</td></tr>` : ''}</tbody></table>${top && list.length > top ? html`<p class="muted">top ${top} of ${list.length}</p>` : ''}`;
  };
  const body = html`<h1>Tokens &amp; cost</h1>
<form class="filters" method="get" action="/tokens">
${sinceSelect(w.since)}
<label>bucket<select name="bucket">${BUCKETS.map((b) => html`<option value="${b}"${b === bucket ? html` selected` : ''}>${b}</option>`)}</select></label>
<label>model<input name="model" value="${model ?? ''}"></label>
<label>session<input name="session" value="${session ?? ''}"></label>
${agentSelect(harness)}
<button type="submit">Apply</button> <a href="/tokens">reset</a>
</form>
<div class="grid3">
<div class="card"><div class="sub">tokens (${fmtInt(total.calls)} model call${total.calls === 1 ? '' : 's'})</div><div class="big" id="total-tokens">${fmtTokens(tok(total))}</div><div class="sub">${fmtTokens(total.input)} in · ${fmtTokens(total.output)} out · ${fmtTokens(total.cacheRead)} cache read · ${fmtTokens(total.cacheWrite)} cache write</div></div>
<div class="card"><div class="sub">reported by the runtime</div><div class="big">${fmtUsd(total.reportedCost)}</div><div class="sub">the agent's own cost figure (Claude Code's <code>cost_usd</code>; goose's in its stream); the other agents report none</div></div>
<div class="card"><div class="sub">list-price estimate</div><div class="big" id="total-estimate">${fmtUsd(total.estimatedCost)}</div><div class="sub">from Beacon's price catalog ${ctx.catalog.source.content_as_of}; standard tier, cache writes at the 5-minute rate</div></div>
</div>
${unpriced.length ? html`<p class="note" id="unpriced">Unpriced: ${fmtInt(total.unpricedCalls)} model calls of ${unpriced.map((m, i) => html`${i ? ', ' : ''}<code>${m}</code>`)} — not in the catalog (or ambiguous there), so not in the estimate. Add prices to your overrides file.</p>` : ''}
<h2>Tokens per ${bucket} (UTC)</h2>
${await stackedBars(
    timeRows.map((r) => ({ start: new Date(Number(r.grp) * 900_000), values: [r.input, r.output, r.cacheRead, r.cacheWrite] as [number, number, number, number] })),
    { interval: bucket, from: w.sinceNs !== undefined ? new Date(Number(w.sinceNs / 1_000_000n)) : undefined, to: new Date(w.untilNs !== undefined ? Number(w.untilNs / 1_000_000n) - 1 : ctx.nowMs) },
  )}
${table('By model', [...byModel.values()], (g) => href('/tokens', { ...keep, model: g.key.replace(/ \(.*\)$/, '') }))}
${table('By agent', [...byAgent.values()], (g) => href('/tokens', { ...keep, harness: g.key }))}
${table('By provider', [...byProvider.values()])}
${table('By repository', [...byRepo.values()], (g) => href('/sessions', { since: w.since, repository: g.key }))}
${table('By session', [...bySession.values()], (g) => href('/session', { id: g.key }), 20)}
${table(`By ${bucket}`, buckets.slice().reverse(), undefined, 0, false)}`;
  return { title: 'Tokens & cost', body };
}

const tok = (g: PricedGroup) => g.input + g.output + g.cacheRead + g.cacheWrite;
