import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { QueuedEventSink } from '../ingest/sink';
import { BeaconError, isBeaconError } from '../model/errors';
import { quoteInput } from '../model/quote-input';
import type { ExportHealth, ForwardHealth, GrpcHealth, HealthAnswer, HookFailureHealth, ImportFollowHealth, SpoolHealth } from '../model/health';
import { STATUS_TABLE } from '../model/status-table';
import { dashboard as dashboardRoutes, type DashboardOptions } from '../dashboard/plugin';
import { encodingOf } from '../receiver/body';
import { otlpReceiver, routePath, type OtlpReceiver } from '../receiver/plugin';
import { RefusalLog } from '../receiver/refusal-log';
import { MEDIA_TYPES, encodeStatus } from '../receiver/reply';
import { hookRoute, type HookRouteOptions } from '../hooks/route';
import { healthReport, type HealthSource } from './health';
import { installHostGuard } from './host-guard';

export interface CollectorHttpOptions {
  /** the writer thread (read through a watching sink): OTLP exports go there, and /health reads it */
  sink: QueuedEventSink & HealthSource;
  logger: Logger;
  maxBodyBytes: number;
  maxPendingExports: number;
  /** most spans, log records or data points in one export; more → 413 */
  maxItemsPerExport: number;
  maxBytesInFlight: number;
  /** a request body sending nothing this long, or incomplete after the deadline, is cut (defaults: src/receiver/read-body.ts) */
  bodyStallMs?: number;
  bodyDeadlineMs?: number;
  /** config `otlpToken`: OTLP exports must carry `Authorization: Bearer <it>` (src/config/otlp-token.ts) */
  otlpToken?: string;
  /** config `otlpAllowOtherUsers`: take exports from other local users' sockets too (src/receiver/sender-check.ts) */
  otlpAllowOtherUsers?: boolean;
  /** after close(): how long open connections may take before they are cut (default 10 s) */
  closeGraceMs?: number;
  /** names besides loopback the Host header may carry (config `allowedHosts`) */
  allowedHosts?: readonly string[];
  /** the hook fast path (the collector serves it; tests of the OTLP path need not) */
  hooks?: HookRouteOptions;
  /** the dashboard at / (the collector serves it; tests of the OTLP path need not) */
  dashboard?: Omit<DashboardOptions, 'health'>;
  /** OTLP/gRPC's state and counters for /health (the collector starts it beside this app) */
  grpcHealth?: () => GrpcHealth | undefined;
  /** forwarding's destinations for /health, when forwarding runs */
  forwardStatus?: () => ForwardHealth[];
  /** Beacon's own hooks failing inside goose, as recorded through this collector */
  hookFailures?: () => HookFailureHealth;
  /** the JSONL export's state, when one is configured */
  exportStatus?: () => ExportHealth | undefined;
  /** spool segments refused since the start */
  spoolStatus?: () => SpoolHealth;
  /** the follow of the agents' session stores, when `importFollow` is set */
  importFollowStatus?: () => ImportFollowHealth | undefined;
}

export interface CollectorHttp {
  app: FastifyInstance;
  receiver: OtlpReceiver;
  /** what /health answers now (the dashboard shows the same report) */
  health(): HealthAnswer;
  /**
   * Shutdown as the README promises: no new connections from now on; every request already
   * received is answered (200 after its commit, or 503 + Retry-After), none is reset; resolves when
   * every connection is closed. The writer is closed after this, by the caller.
   */
  close(): Promise<void>;
  /** requests being handled, and bytes held by exports in flight (admission) */
  inFlight(): { exports: number; bytes: number };
}

/**
 * No route declares a JSON schema (bodies are decoded and checked by the receiver and the hook
 * route), so Fastify's default compilers (ajv and fast-json-stringify, ~110 modules and ~3 MB of
 * an idle collector's RSS) are never loaded; a route that declared one would fail at startup.
 */
const NO_SCHEMA_COMPILERS = {
  compilersFactory: {
    buildValidator: () => () => { throw new Error('the collector compiles no JSON schemas'); },
    buildSerializer: () => () => { throw new Error('the collector compiles no JSON schemas'); },
  },
};

/**
 * The collector's one HTTP app: the Host guard, then the OTLP receiver, the hook route, the
 * dashboard and /health, each a plugin; one error handler (a BeaconError's status from the one
 * table, a google.rpc.Status body in the request's encoding) and one 404.
 */
export function buildCollectorHttp(options: CollectorHttpOptions): CollectorHttp {
  const { logger } = options;
  const app = Fastify({ logger: false, return503OnClosing: false, schemaController: NO_SCHEMA_COMPILERS });
  let closing = false;
  let handling = 0;
  let lastRequestAt = 0;
  // A connection accepted but whose first request is not parsed yet may hold one wholly sent: the stop
  // waits for it (within its grace). A quiet moment was not enough: on a starved 2-core machine more than
  // 250 ms passed between accepting a backlog and parsing its requests, and closing the "idle" sockets
  // (Node counts a socket with no request yet as idle) reset 20 of 48 wholly sent requests.
  const unparsed = new Set<net.Socket>();
  let accepted = 0;
  app.server.on('connection', (socket: net.Socket) => {
    accepted++;
    lastRequestAt = Date.now();
    unparsed.add(socket);
    socket.once('close', () => unparsed.delete(socket));
  });
  // the raw server's event: every parsed request, the ones a hook refuses first (a foreign Host) too
  app.server.on('request', (req: { socket: net.Socket }) => unparsed.delete(req.socket));
  const refusals = new RefusalLog(logger);
  app.addHook('onClose', async () => refusals.flush());

  const hostGuard = installHostGuard(app, options.allowedHosts ?? []); // first: a foreign Host reaches no route
  app.addHook('onRequest', async (_req, reply) => {
    handling++;
    lastRequestAt = Date.now();
    reply.raw.once('close', () => handling--);
  });
  // While stopping, every reply closes its connection: a keep-alive socket left open would hold
  // the shutdown for the client's whole keep-alive timeout.
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('connection', 'close');
  });

  const receiver = otlpReceiver({ ...options, isClosing: () => closing, refusals });
  const health = (): HealthAnswer =>
    healthReport({
      writer: options.sink,
      closing,
      counters: receiver.stats,
      queueBytes: receiver.bytesInFlight(),
      hostRefused: hostGuard.refused,
      senders: receiver.senders.health(),
      ...(options.hooks ? { hooks: options.hooks.stats } : {}),
      grpc: options.grpcHealth?.(),
      ...(options.forwardStatus ? { forward: options.forwardStatus() } : {}),
      ...(options.hookFailures ? { hookFailures: options.hookFailures() } : {}),
      export: options.exportStatus?.(),
      spool: options.spoolStatus?.(),
      importFollow: options.importFollowStatus?.(),
    });
  void app.register(receiver.plugin);
  if (options.hooks) void app.register(hookRoute, options.hooks);
  const dashboard = options.dashboard ? dashboardRoutes({ ...options.dashboard, health: () => health().body }) : undefined;
  if (dashboard) void app.register(dashboard.plugin);
  app.get('/health', async (_req, reply) => {
    const r = health();
    return reply.code(r.httpStatus).send(r.body);
  });

  app.setNotFoundHandler(async (req, reply) => {
    if (dashboard && (await dashboard.notFound(req, reply))) return reply;
    const hint = req.method === 'POST' && req.url === '/' ? ' (OTLP exporters append /v1/traces to the endpoint; a per-signal endpoint must include it)' : '';
    throw new BeaconError('not_found', `404 page not found: ${req.method} ${quoteInput(req.url, 64)}${hint}`);
  });

  app.setErrorHandler(async (err: Error & { code?: string; statusCode?: number }, req, reply) => {
    const e = toBeaconError(err);
    const { http, grpc, httpBodyCode } = STATUS_TABLE[e.code];
    // the route the router matched (/v1/%74races is /v1/traces); the path as sent only for a 404
    const path = req.routeOptions.url ?? routePath(req);
    if (http >= 500) logger.error({ code: e.code, err: e.message, path }, 'export failed');
    else refusals.note(http, e.code, path);
    // A dashboard page is read by a person in a browser: the refusal as a page that says how to get in.
    if (dashboard && (req.routeOptions.config as { dashboardPage?: boolean } | undefined)?.dashboardPage) {
      return reply.code(http).type('text/html; charset=utf-8').send(dashboard.refusalPage(http, e.message));
    }
    const encoding = encodingOf(req.headers['content-type']) ?? 'json';
    if (e.retryAfterSeconds !== undefined && (http === 429 || http === 503)) reply.header('retry-after', String(e.retryAfterSeconds));
    return reply.code(http).type(MEDIA_TYPES[encoding]).send(encodeStatus(encoding, httpBodyCode ?? grpc, e.message));
  });

  let closed: Promise<void> | undefined;
  const close = () => {
    closing = true;
    const since = Date.now();
    // a connection that sent nothing (a browser's preconnect) holds the stop UNPARSED_WAIT_MS at most, not the whole grace
    const waiting = () => unparsed.size > 0 && Date.now() - since < UNPARSED_WAIT_MS;
    const busy = () => handling > 0 || waiting() || Date.now() - lastRequestAt < 250;
    return closeGracefully(app, { busy, accepted: () => accepted }, options.closeGraceMs ?? 10_000);
  };

  return {
    app,
    receiver,
    health,
    close: () => (closed ??= close()),
    inFlight: () => ({ exports: handling, bytes: receiver.bytesInFlight() }),
  };
}

/** How long the stop waits for accepted connections to show their first request: ample for a starved machine to parse a backlog. */
const UNPARSED_WAIT_MS = 3_000;

/** How long the listener stays open at least once the stop begins (then until a loop turn accepts nothing: backlogTaken). */
const BACKLOG_DRAIN_MS = 50;

/**
 * Every request already sent is answered; then no new connections. Closing the listener at once
 * reset the connections the kernel had accepted but Node had not yet taken from the backlog — their
 * request fully sent (issue 22 item 8: 36 of 48 such requests reset). So it stays open for
 * BACKLOG_DRAIN_MS and then until a turn of the loop accepts nothing (backlogTaken; what arrives
 * meanwhile is answered 503 + `Connection: close` like any request while stopping), then closes:
 * later connections are refused. The open connections stay, unlike http.Server#close, which would also drop idle
 * keep-alive sockets — and a request just sent on one. `busy` until what is in flight is answered
 * and no connection or request came for a moment (idle means no request and no bytes for that
 * moment, not "not parsed yet"); then idle sockets are closed, the rest cut at the grace's end.
 */
async function closeGracefully(app: FastifyInstance, state: { busy: () => boolean; accepted: () => number }, graceMs: number): Promise<void> {
  const { busy } = state;
  const deadline = Date.now() + graceMs;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await sleep(BACKLOG_DRAIN_MS);
  await backlogTaken(state.accepted, deadline);
  if (app.server.listening) net.Server.prototype.close.call(app.server);
  do await sleep(25);
  while (Date.now() < deadline && busy());
  const force = setTimeout(() => app.server.closeAllConnections(), Math.max(0, deadline - Date.now()));
  await app.close();
  clearTimeout(force);
}

/**
 * Resolves after a turn of the event loop whose poll phase accepted no connection: the kernel's
 * accept queue was empty when the loop looked (or at the deadline: a flood that never stops cannot
 * hold the stop past its grace, each of its requests answered 503). A fixed wait was not enough: on
 * a starved 2-core machine (load ~9) the loop took 16 queued connections over up to 320 ms after the stop began
 * (not in one turn), and closing the listener at 50 ms reset those still queued (15 of 48 wholly sent requests).
 */
async function backlogTaken(accepted: () => number, deadline: number): Promise<void> {
  const turn = () => new Promise((r) => setImmediate(r));
  for (let before = -1; before !== accepted() && Date.now() < deadline; ) {
    before = accepted();
    await turn();
  }
}

/** Fastify's own failures (an invalid Content-Type header, a hook body over its limit) mapped onto Beacon's codes. */
function toBeaconError(err: Error & { code?: string; statusCode?: number }): BeaconError {
  if (isBeaconError(err)) return err;
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new BeaconError('unsupported_media_type', '415 unsupported media type, supported: [application/json, application/x-protobuf]');
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) return new BeaconError('bad_data', err.message);
  return new BeaconError('internal', err.message, { cause: err });
}

