import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { BeaconError } from '../model/errors';
import type { HealthReport } from '../model/health';
import { clientScript, stylesheet } from './assets';
import type { Query } from './context';
import { PAGE_PATHS } from './page-routes';
import { QueryThread } from './query-thread';
import { SECURITY_HEADERS } from './security';
import { isSignedIn, loginRoutes, refusalPage, tokenGuard } from './login';
import { DashboardLogins } from './sessions';

export interface DashboardOptions {
  /** the event log the pages read (on the query thread's own read-only connection, opened on the first request) */
  logPath: string;
  /** the collector's health report, the same the `/health` route sends */
  health: () => HealthReport;
  /** when set, every dashboard request must carry it (shared machines): a login (POST /login with a code, `?token=`), then a session cookie */
  token?: string;
  retention: { maxAgeDays: number; maxBytes: number };
  /** where the pricing overrides file is looked up */
  env: NodeJS.ProcessEnv;
}

const NON_GET = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/**
 * The read-only dashboard as a Fastify plugin: GET pages, two static files, a change poll and a
 * JSONL download. Every response carries the strict security headers; the host guard of the app it
 * is registered on has already refused foreign hosts before any of this runs. Pages, the poll and
 * the download are answered by the query thread (query-worker.ts): no dashboard query runs on the
 * thread that decodes exports, and an idle collector has not loaded the pages at all.
 */
export function dashboard(options: DashboardOptions): { plugin: FastifyPluginAsync; notFound: (req: FastifyRequest, reply: FastifyReply) => Promise<boolean>; refusalPage: typeof refusalPage } {
  const queries = new QueryThread({ logPath: options.logPath, retention: options.retention, env: options.env });
  const logins = options.token ? new DashboardLogins(options.token) : undefined;
  return { plugin: async (app) => routes(app, options, queries, logins), notFound: (req, reply) => notFound(queries, logins, req, reply), refusalPage };
}

async function routes(app: FastifyInstance, options: DashboardOptions, queries: QueryThread, logins: DashboardLogins | undefined): Promise<void> {
  app.addHook('onClose', async () => queries.close());
  const health = (): Partial<HealthReport> => {
    try {
      return options.health();
    } catch {
      return { status: 'unavailable' }; // the overview shows the collector as unavailable, not a 500
    }
  };

  const guard = tokenGuard(logins, false);
  const pageGuard = tokenGuard(logins, true);

  for (const path of PAGE_PATHS) {
    app.get(path, { onRequest: pageGuard, config: { dashboardPage: true } }, async (req, reply) => {
      // Only the overview shows the health report: other pages are not sent one (two stats and a copy per request).
      const r = await queries.ask({ kind: 'page', path, query: req.query as Query, health: path === '/' ? health() : {} });
      return reply.code(r.status ?? 200).type('text/html; charset=utf-8').send(r.html);
    });
  }
  app.get('/assets/app.js', { onRequest: guard }, async (_req, reply) => reply.type('text/javascript; charset=utf-8').send(clientScript()));
  app.get('/assets/app.css', { onRequest: guard }, async (_req, reply) => reply.type('text/css; charset=utf-8').send(stylesheet()));
  app.get('/api/changes', { onRequest: guard }, async (req) => (await queries.ask({ kind: 'changes', query: req.query as Query })).json);
  app.get('/events.jsonl', { onRequest: guard }, async (req, reply) => {
    const { stream } = await queries.ask({ kind: 'jsonl-open', query: req.query as Query }); // a bad query is a 400 here, before any byte
    // One chunk of 2,000 events per request to the query thread, pulled as the client reads.
    async function* lines() {
      let done = false;
      try {
        for (;;) {
          const { chunk } = await queries.ask({ kind: 'jsonl-next', stream: stream! });
          if (chunk === null || chunk === undefined) break;
          yield chunk;
        }
        done = true;
      } finally {
        if (!done) void queries.ask({ kind: 'jsonl-close', stream: stream! }).catch(() => undefined);
      }
    }
    return reply
      .type('application/x-ndjson; charset=utf-8')
      .header('content-disposition', 'attachment; filename="beacon-events.jsonl"')
      .send(Readable.from(lines()));
  });
  loginRoutes(app, logins);
  // Not '/': a POST there is an OTLP endpoint set without its /v1/traces, which the 404 explains.
  for (const path of [...PAGE_PATHS.filter((p) => p !== '/'), '/events.jsonl', '/api/changes', '/assets/app.js', '/assets/app.css']) {
    app.route({ method: [...NON_GET], url: path, handler: async () => { throw new BeaconError('method_not_allowed', '405 method not allowed: the dashboard is read-only, supported: [GET]'); } });
  }
}

/**
 * A 404 for a signed-in browser is a page (rendered by the query thread), not a google.rpc.Status;
 * anyone else gets the plain 404, so an unknown URL never starts the query thread without a login.
 */
async function notFound(queries: QueryThread, logins: DashboardLogins | undefined, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  if (req.method !== 'GET' || !(req.headers.accept ?? '').includes('text/html')) return false;
  if (logins && !isSignedIn(logins, req)) return false;
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
  const { html } = await queries.ask({ kind: 'not-found', path: req.url.split('?')[0]! });
  void reply.code(404).type('text/html; charset=utf-8').send(html);
  return true;
}
