import { timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { BeaconError } from '../model/errors';
import type { HealthReport } from '../model/health';
import { clientScript, stylesheet } from './assets';
import type { Query } from './context';
import { param } from './context';
import { PAGE_PATHS } from './page-routes';
import { QueryThread } from './query-thread';
import { SECURITY_HEADERS } from './security';

export interface DashboardOptions {
  /** the event log the pages read (on the query thread's own read-only connection, opened on the first request) */
  logPath: string;
  /** the collector's health report, the same the `/health` route sends */
  health: () => HealthReport;
  /** when set, every dashboard request must carry it (shared machines): `?token=` once, then a cookie */
  token?: string;
  retention: { maxAgeDays: number; maxBytes: number };
  /** where the pricing overrides file is looked up */
  env: NodeJS.ProcessEnv;
}

const COOKIE = 'beacon_dashboard';
const NON_GET = ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/**
 * The read-only dashboard as a Fastify plugin: GET pages, two static files, a change poll and a
 * JSONL download. Every response carries the strict security headers; the host guard of the app it
 * is registered on has already refused foreign hosts before any of this runs. Pages, the poll and
 * the download are answered by the query thread (query-worker.ts): no dashboard query runs on the
 * thread that decodes exports, and an idle collector has not loaded the pages at all.
 */
export function dashboard(options: DashboardOptions): { plugin: FastifyPluginAsync; notFound: (req: FastifyRequest, reply: FastifyReply) => Promise<boolean> } {
  const queries = new QueryThread({ logPath: options.logPath, retention: options.retention, env: options.env });
  return { plugin: async (app) => routes(app, options, queries), notFound: (req, reply) => notFound(queries, req, reply) };
}

async function routes(app: FastifyInstance, options: DashboardOptions, queries: QueryThread): Promise<void> {
  app.addHook('onClose', async () => queries.close());
  const health = (): Partial<HealthReport> => {
    try {
      return options.health();
    } catch {
      return { status: 'unavailable' }; // the overview shows the collector as unavailable, not a 500
    }
  };

  const guard = tokenGuard(options.token);

  for (const path of PAGE_PATHS) {
    app.get(path, { onRequest: guard }, async (req, reply) => {
      const r = await queries.ask({ kind: 'page', path, query: req.query as Query, health: health() });
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
  // Not '/': a POST there is an OTLP endpoint set without its /v1/traces, which the 404 explains.
  for (const path of [...PAGE_PATHS.filter((p) => p !== '/'), '/events.jsonl', '/api/changes', '/assets/app.js', '/assets/app.css']) {
    app.route({ method: [...NON_GET], url: path, handler: async () => { throw new BeaconError('method_not_allowed', '405 method not allowed: the dashboard is read-only, supported: [GET]'); } });
  }
}

/**
 * Every dashboard request's first step: the security headers, then, when the dashboard has a token,
 * the token (from `?token=` once, then the cookie it is moved into, or a Bearer header).
 */
function tokenGuard(token: string | undefined) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
    if (token === undefined || token === '') return;
    const q = req.query as Query;
    const offered = param(q, 'token');
    if (offered !== undefined && same(offered, token)) {
      // Once: the token moves into a cookie scripts cannot read and other sites never send.
      const url = new URL(req.url, 'http://x');
      url.searchParams.delete('token');
      reply.header('set-cookie', `${COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict`);
      return reply.redirect(`${url.pathname}${url.search}`, 303);
    }
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ') && same(auth.slice(7), token)) return;
    const cookie = cookieValue(req.headers.cookie, COOKIE);
    if (cookie !== undefined && same(cookie, token)) return;
    throw new BeaconError('forbidden', '403 forbidden: this dashboard needs its token (the "dashboardToken" setting); open the URL that `beacon dashboard` prints');
  };
}

/** A 404 for a browser is a page (rendered by the query thread), not a google.rpc.Status. */
async function notFound(queries: QueryThread, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  if (req.method !== 'GET' || !(req.headers.accept ?? '').includes('text/html')) return false;
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
  const { html } = await queries.ask({ kind: 'not-found', path: req.url.split('?')[0]! });
  void reply.code(404).type('text/html; charset=utf-8').send(html);
  return true;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
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
