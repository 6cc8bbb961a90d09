/**
 * The pages' GET routes, for the main thread: it routes a page request to the query thread without
 * loading the pages (they load there, on the first request). `pages.ts` is the registry;
 * test/integration/dashboard-routes.test.ts fails when this list and its paths disagree.
 */
export const PAGE_PATHS: readonly string[] = ['/', '/sessions', '/events', '/tokens', '/session'];
