import { Readable } from 'node:stream';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type Database from 'better-sqlite3';
import { BeaconError } from '../model/errors';
import type { HealthReport } from '../model/health';
import { loadCatalog, loadOverrides, overridesPath } from '../pricing/catalog';
import { clientScript, stylesheet } from './assets';
import type { DashboardContext, Query } from './context';
import { param } from './context';
import { changes, notFoundPage, PAGES, renderPage } from './pages';
import { eventSearchOf } from './pages/events';
import { SECURITY_HEADERS } from './security';
import { CODE_TTL_MS, DashboardLogins, SESSION_MAX_MS } from './sessions';

/** The log as the pages read it: one read-only connection and the usage rollup kept over it. */
export interface DashboardLog {
  readonly path: string;
  readonly db: Database.Database;
  readonly usage: UsageRollup;
  close(): void;
}
import { iterateEvents } from '../store/queries/event-search';
import type { SessionDetailCache } from '../store/queries/sessions';
import { EventLog } from '../store/log/event-log';
import { UsageRollup } from '../store/queries/usage-rollup';
import { exportLine } from '../store/maintenance/jsonl-export';

export interface DashboardOptions {
  /** opens the log the pages read; called on the first request, and closed with the server */
  openLog: () => DashboardLog;
  /** the collector's health report, the same the `/health` route sends */
  health: () => HealthReport;
  /** when set, every dashboard request must carry it (shared machines): a login (`?code=`, `?token=`), then a session cookie */
  token?: string;
  retention: { maxAgeDays: number; maxBytes: number };
  /** where the pricing overrides file is looked up */
  env: NodeJS.ProcessEnv;
}

/** The usual `openLog`: the event log on its own read-only connection (the collector creates the log before listening). */
export function readOnlyLog(path: string): () => DashboardLog {
  return () => {
    const log = EventLog.open(path, { readonly: true });
    return { path, db: log.db, usage: new UsageRollup(log.db), close: () => log.close() };
  };
}

const COOKIE = 'beacon_dashboard';
const NON_GET = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/**
 * The read-only dashboard as a Fastify plugin: GET pages, two static files, a change poll and a
 * JSONL download. Every response carries the strict security headers; the host guard of the app it
 * is registered on has already refused foreign hosts before any of this runs.
 */
export const dashboardPlugin: FastifyPluginAsync<DashboardOptions> = async (app, options) => {
  let log: DashboardLog | undefined;
  const sessionDetails: SessionDetailCache = new Map();
  const openLog = (): DashboardLog => (log ??= options.openLog());
  const catalog = loadCatalog();
  const overrides = (() => {
    try {
      return loadOverrides(overridesPath(options.env));
    } catch {
      return undefined; // a broken overrides file leaves models unpriced here; token-usage names the error
    }
  })();
  const context = (): DashboardContext => ({
    db: openLog().db,
    usage: openLog().usage,
    sessionDetails,
    logPath: openLog().path,
    catalog,
    overrides,
    retention: options.retention,
    nowMs: Date.now(),
    health: () => {
      try {
        return options.health();
      } catch {
        return { status: 'unavailable' }; // the overview shows the collector as unavailable, not a 500
      }
    },
  });
  app.addHook('onClose', async () => log?.close());

  const logins = options.token ? new DashboardLogins(options.token) : undefined;
  const guard = tokenGuard(logins, false);
  const pageGuard = tokenGuard(logins, true);

  for (const page of PAGES) {
    app.get(page.path, { onRequest: pageGuard }, async (req, reply) => {
      const r = await renderPage(page, context(), req.query as Query);
      return reply.code(r.status).type('text/html; charset=utf-8').send(r.html);
    });
  }
  app.get('/assets/app.js', { onRequest: guard }, async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(clientScript()));
  app.get('/assets/app.css', { onRequest: guard }, async (_req, reply) => reply.type('text/css; charset=utf-8').send(stylesheet()));
  app.get('/api/changes', { onRequest: guard }, async (req) => changes(context(), req.query as Query));
  app.get('/events.jsonl', { onRequest: guard }, async (req, reply) => {
    const { search, error } = eventSearchOf(req.query as Query, Date.now());
    if (error) throw new BeaconError('bad_data', error);
    const d = openLog().db;
    // Chunks of 2,000 events with a turn of the event loop between them: ingest goes on during a long download.
    async function* lines() {
      for (const chunk of iterateEvents(d, search)) {
        yield chunk.map((e) => `${exportLine(e.seq, e.record)}\n`).join('');
        await new Promise((r) => setImmediate(r));
      }
    }
    return reply
      .type('application/x-ndjson; charset=utf-8')
      .header('content-disposition', 'attachment; filename="beacon-events.jsonl"')
      .send(Readable.from(lines()));
  });
  // `beacon dashboard --open` trades the token for a one-use code to put on the browser's command line.
  app.post('/api/login-code', async (req, reply) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
    const auth = req.headers.authorization;
    // never from a page (a browser sends Origin on a POST): only a client holding the token asks
    if (!logins || req.headers.origin !== undefined || !auth?.startsWith('Bearer ') || !logins.isToken(auth.slice(7))) {
      throw new BeaconError('forbidden', '403 forbidden: a login code is given for the dashboard token (Authorization: Bearer), to `beacon dashboard --open`');
    }
    return reply.type('application/json').send({ code: logins.issueCode(), expiresInSeconds: CODE_TTL_MS / 1000 });
  });
  // Not '/': a POST there is an OTLP endpoint set without its /v1/traces, which the 404 explains.
  for (const path of [...PAGES.map((p) => p.path).filter((p) => p !== '/'), '/events.jsonl', '/api/changes', '/assets/app.js', '/assets/app.css']) {
    app.route({ method: [...NON_GET], url: path, handler: async () => { throw new BeaconError('method_not_allowed', '405 method not allowed: the dashboard is read-only, supported: [GET]'); } });
  }
};

/**
 * Every dashboard request's first step: the security headers, then, when the dashboard has a token,
 * a login: `?code=` (from `beacon dashboard --open`) or `?token=` once, moved into a session cookie;
 * then the session cookie (a page load replaces it, see sessions.ts), or the token as a Bearer header.
 */
function tokenGuard(logins: DashboardLogins | undefined, page: boolean) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
    if (!logins) return;
    const q = req.query as Query;
    const code = param(q, 'code');
    const offered = param(q, 'token');
    if ((code !== undefined && logins.redeemCode(code)) || (offered !== undefined && logins.isToken(offered))) {
      const url = new URL(req.url, 'http://x');
      url.searchParams.delete('token');
      url.searchParams.delete('code');
      reply.header('set-cookie', sessionCookie(logins.startSession()));
      return reply.redirect(`${url.pathname}${url.search}`, 303);
    }
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ') && logins.isToken(auth.slice(7))) return;
    const session = cookieValue(req.headers.cookie, COOKIE);
    if (session !== undefined && logins.touch(session)) {
      const next = page ? logins.rotate(session) : undefined;
      if (next) reply.header('set-cookie', sessionCookie(next));
      return;
    }
    throw new BeaconError('forbidden', '403 forbidden: this dashboard needs its token (the "dashboardToken" setting); run `beacon dashboard --open`, or open the URL it prints');
  };
}

/** A cookie scripts cannot read and other sites never send; it names a session, never the token. */
function sessionCookie(id: string): string {
  return `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_MS / 1000}`;
}

/** A 404 for a browser is a page, not a google.rpc.Status. */
export function dashboardNotFound(req: FastifyRequest, reply: FastifyReply): boolean {
  if (req.method !== 'GET' || !(req.headers.accept ?? '').includes('text/html')) return false;
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
  void reply.code(404).type('text/html; charset=utf-8').send(notFoundPage(req.url.split('?')[0]!));
  return true;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
