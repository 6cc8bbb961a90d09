import type { DashboardContext, Query } from './context';
import type { Html } from './html';

/** What a page renders: its title and body (the layout wraps them), and a status when not 200 (a bad query: 400). */
export interface PageContent {
  title: string;
  body: Html;
  status?: number;
}

/**
 * One dashboard page. A new page is a module exporting one of these and a line in `pages.ts`'s
 * registry: the route, the navigation and the `data-page` the client script reads all come from it.
 */
export interface Page {
  /** `<body data-page>` (the client script keys on it) */
  name: string;
  /** the GET route */
  path: string;
  /** its own navigation entry, or the entry it is part of (a session's timeline is under Sessions) */
  nav: { label: string } | { under: string };
  render(ctx: DashboardContext, q: Query): PageContent | Promise<PageContent>;
}
