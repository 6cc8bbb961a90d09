import { changesSince, newestSeq } from '../store/queries/overview';
import type { DashboardContext, Query } from './context';
import { param } from './context';
import { html } from './html';
import { layout } from './layout';
import type { Page } from './page';
import { eventsPage } from './pages/events';
import { overviewPage } from './pages/overview';
import { sessionsPage } from './pages/sessions';
import { timelinePage } from './pages/timeline';
import { tokensPage } from './pages/tokens';

/** The dashboard's pages, in the navigation's order: a page is its module plus a line here. */
export const PAGES: readonly Page[] = [overviewPage, sessionsPage, eventsPage, tokensPage, timelinePage];

export async function renderPage(page: Page, ctx: DashboardContext, q: Query): Promise<{ status: number; html: string }> {
  const seq = newestSeq(ctx.db);
  const r = await page.render(ctx, q);
  return { status: r.status ?? 200, html: layout({ page, pages: PAGES, title: r.title, seq, body: r.body }).value };
}

export function notFoundPage(path: string): string {
  // a page of its own, under no navigation entry: the 404 highlights none
  return layout({ page: { name: 'not-found', path, nav: { under: '' }, render: () => ({ title: 'Not found', body: html`` }) }, pages: PAGES, title: 'Not found', seq: 0n, body: html`<h1>Not found</h1><p>There is no page <code>${path}</code>.</p>` }).value;
}

/** `GET /api/changes?since=SEQ`: the newest commit and how many came after SEQ (the pages poll it). */
export function changes(ctx: DashboardContext, q: Query): { seq: string; newEvents: number } {
  const since = param(q, 'since');
  // Without a valid `since` there is nothing to count from: the newest sequence only, never a count of the log.
  if (since === undefined || !/^\d{1,19}$/.test(since)) return { seq: newestSeq(ctx.db).toString(), newEvents: 0 };
  const c = changesSince(ctx.db, BigInt(since));
  return { seq: c.seq.toString(), newEvents: c.newEvents };
}
