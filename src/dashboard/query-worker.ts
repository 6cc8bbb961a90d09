/**
 * The dashboard's query thread: every page, the change poll and the JSONL download read the log
 * here, on their own read-only connection, so a page's queries (a tokens page on a big log takes
 * hundreds of milliseconds) never hold up the main thread, which decodes exports. The pages, the
 * store's read models and the price catalog load here too, on the first dashboard request, not in
 * an idle collector. One request at a time, in order (SQLite reads on one connection are serial anyway).
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { BeaconError, isBeaconError } from '../model/errors';
import { loadCatalog, loadOverrides, overridesPath } from '../pricing/catalog';
import { EventLog } from '../store/log/event-log';
import { iterateEvents } from '../store/queries/event-search';
import type { SessionDetailCache } from '../store/queries/sessions';
import { exportLine } from '../store/maintenance/jsonl-export';
import type { DashboardContext } from './context';
import { changes, notFoundPage, PAGES, renderPage } from './pages';
import { eventSearchOf } from './pages/events';
import type { QueryAnswer, QueryRequest, QueryThreadInit } from './query-protocol';

const port = parentPort!;
const init = workerData as QueryThreadInit;
// On a busy machine the dashboard yields the CPU to the thread that decodes exports: on Linux a
// nice value belongs to a thread (setpriority(2), NOTES), so this lowers this thread alone. Not
// elsewhere: on macOS it would lower the whole collector.
if (process.platform === 'linux') {
  try {
    setPriority(0, 10);
  } catch {
    /* not permitted: the thread runs at the collector's priority */
  }
}
const catalog = loadCatalog();
const overrides = (() => {
  try {
    return loadOverrides(overridesPath(init.env));
  } catch {
    return undefined; // a broken overrides file leaves models unpriced here; token-usage names the error
  }
})();
const sessionDetails: SessionDetailCache = new Map();
let db: EventLog['db'] | undefined;
/** open JSONL downloads: each a generator of chunks of 2,000 events, pulled one chunk per request */
const streams = new Map<number, Generator<string>>();
let nextStream = 1;

function openLog(): EventLog['db'] {
  db ??= EventLog.open(init.logPath, { readonly: true }).db;
  return db;
}

function context(health: DashboardContext['health']): DashboardContext {
  return { db: openLog(), sessionDetails, logPath: init.logPath, catalog, overrides, retention: init.retention, nowMs: Date.now(), health };
}

async function answer(req: QueryRequest): Promise<QueryAnswer> {
  const { id } = req;
  switch (req.kind) {
    case 'page': {
      const page = PAGES.find((p) => p.path === req.path);
      if (!page) return { id, ok: true, status: 404, html: notFoundPage(req.path) };
      const r = await renderPage(page, context(() => req.health), req.query);
      return { id, ok: true, status: r.status, html: r.html };
    }
    case 'not-found':
      return { id, ok: true, status: 404, html: notFoundPage(req.path) };
    case 'changes':
      return { id, ok: true, json: changes(context(() => ({})), req.query) };
    case 'jsonl-open': {
      const { search, error } = eventSearchOf(req.query, Date.now());
      if (error) throw new BeaconError('bad_data', error);
      const db = openLog();
      const stream = nextStream++;
      streams.set(stream, (function* () {
        for (const chunk of iterateEvents(db, search)) yield chunk.map((e) => `${exportLine(e.seq, e.record)}\n`).join('');
      })());
      return { id, ok: true, stream };
    }
    case 'jsonl-next': {
      const it = streams.get(req.stream);
      const next = it?.next();
      if (!next || next.done) streams.delete(req.stream);
      return { id, ok: true, chunk: next && !next.done ? next.value : null };
    }
    case 'jsonl-close':
      streams.get(req.stream)?.return(undefined);
      streams.delete(req.stream);
      return { id, ok: true };
  }
}

let chain: Promise<void> = Promise.resolve();
port.on('message', (req: QueryRequest) => {
  chain = chain.then(async () => {
    let a: QueryAnswer;
    try {
      a = await answer(req);
    } catch (e) {
      const error = isBeaconError(e) ? { code: e.code, message: e.message } : { code: 'internal' as const, message: e instanceof Error ? e.message : String(e) };
      a = { id: req.id, ok: false, error };
    }
    port.postMessage(a);
  });
});
