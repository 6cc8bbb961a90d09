import { changesSince, newestSeq } from '../store/queries/overview';
import type { DashboardContext, Query } from './context';
import { param } from './context';
import { html, type Html } from './html';
import { layout, type PageName } from './layout';
import { eventsPage } from './pages/events';
import { overviewPage } from './pages/overview';
import { sessionsPage } from './pages/sessions';
import { timelinePage } from './pages/timeline';
import { tokensPage } from './pages/tokens';

/** The dashboard's pages by path; each renders to a whole HTML document. */
export const PAGES: Record<string, PageName> = { '/': 'overview', '/sessions': 'sessions', '/session': 'timeline', '/events': 'events', '/tokens': 'tokens' };

export async function renderPage(page: PageName, ctx: DashboardContext, q: Query): Promise<{ status: number; html: string }> {
  const seq = newestSeq(ctx.db);
  let r: { title: string; body: Html; status?: number };
  switch (page) {
    case 'overview':
      r = await overviewPage(ctx);
      break;
    case 'sessions':
      r = sessionsPage(ctx, q);
      break;
    case 'timeline':
      r = timelinePage(ctx, q);
      break;
    case 'events':
      r = eventsPage(ctx, q);
      break;
    case 'tokens':
      r = tokensPage(ctx, q);
      break;
  }
  return { status: r.status ?? 200, html: layout({ page, title: r.title, seq, body: r.body }).value };
}

export function notFoundPage(path: string): string {
  return layout({ page: 'overview', title: 'Not found', seq: 0n, body: html`<h1>Not found</h1><p>There is no page <code>${path}</code>.</p>` }).value;
}

/** `GET /api/changes?since=SEQ`: the newest commit and how many came after SEQ (the pages poll it). */
export function changes(ctx: DashboardContext, q: Query): { seq: string; newEvents: number } {
  const since = param(q, 'since');
  // Without a valid `since` there is nothing to count from: the newest sequence only, never a count of the log.
  if (since === undefined || !/^\d{1,19}$/.test(since)) return { seq: newestSeq(ctx.db).toString(), newEvents: 0 };
  const c = changesSince(ctx.db, BigInt(since));
  return { seq: c.seq.toString(), newEvents: c.newEvents };
}
