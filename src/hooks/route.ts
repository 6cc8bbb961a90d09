import { realpathSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { HOOK_TOKEN_HEADER, tokenMatches } from '../config/hook-token';
import { isHookLauncherHost } from '../config/hosts';
import { BeaconError, type BeaconErrorCode } from '../model/errors';
import { quoteInput } from '../model/quote-input';
import type { HookRouteHealth } from '../model/health';
import { STATUS_TABLE } from '../model/status-table';
import { handleHook } from './pipeline';
import { callPairing } from './call-pairing';
import { hookAdapter } from '../sources/hook-registry';
import type { EventSink } from '../ingest/sink';
import { EventLog } from '../store/log/event-log';
import { lastWorkingDirectory } from '../store/queries/session-directory';

/** Why a hook request was refused: each is counted and shown on /health. */
export type HookRefusal = 'token' | 'content_type' | 'origin' | 'host' | 'wrong_log';

/** The route's counters, shown on /health as `hooks`. */
export type HookRouteStats = HookRouteHealth;

export function newHookRouteStats(): HookRouteStats {
  return { received: 0, refused: { token: 0, content_type: 0, origin: 0, host: 0, wrong_log: 0 } };
}

export interface HookRouteOptions {
  /** the collector's own event log: a hook that names another one is answered 409 (its launcher then writes that log itself) */
  logPath: string;
  token: string;
  sink: EventSink;
  stats: HookRouteStats;
  /** hook payloads carry whole files on a write: well above any agent's event, well below memory trouble */
  bodyLimit?: number;
}

/**
 * `POST /v1/hooks/<platform>/<event>`: the hook fast path, for every agent `beacon-hooks` speaks
 * (the same platform and event names as its command line). The launcher the agent runs posts the
 * payload here with curl; the collector records it through the same pipeline as `beacon-hooks` and
 * replies with exactly what the agent must read on stdout (for most agents nothing: a 200 with an
 * empty body). Anything but 200 sends the launcher to its fallback (the direct writer), so a refusal
 * never loses an event — it only costs a Node.js start. Claude Code's `type: "http"` hooks POST the
 * payload here themselves (no process at all): their entry carries the token and the log as
 * headers, and Claude reads the 200's body as a command hook's stdout (empty: no opinion; any
 * other status: a non-blocking error, the call goes on).
 *
 * Only the user who owns the log may write through it: a token from the 0600 file beside the log,
 * JSON only (a cross-site form cannot send it without a preflight), no browser Origin, a loopback
 * Host. Each refusal is counted, never logged with content.
 */
export const hookRoute: FastifyPluginAsync<HookRouteOptions> = async (scope, options) => {
  const own = canonical(options.logPath);
  const { stats } = options;
  // Read-only, opened on the first prompt that needs its session's directory, closed with the app.
  let reader: EventLog | undefined;
  const rememberedDir = (session: string) => lastWorkingDirectory((reader ??= EventLog.open(options.logPath, { readonly: true })), session);
  scope.addHook('onClose', async () => reader?.close());
  // The receiver's parsers decode OTLP; a hook's payload goes to the hook pipeline as text.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: options.bodyLimit ?? 16 * 1024 * 1024 }, (_req, body, done) => done(null, body));
  scope.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
  // The launcher reads only the status; the body is plain text for a person reading curl's output.
  scope.setErrorHandler(async (err, _req, reply) => {
    if (!(err instanceof BeaconError)) throw err; // the collector's handler answers the rest
    if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
    return reply.code(STATUS_TABLE[err.code].http).type('text/plain').send(err.message);
  });

  scope.addHook('onRequest', async (req) => {
    const refusal = refusalOf(req, options.token);
    if (refusal) refuse(refusal);
  });

  // Read-only like `reader`: Beacon's call ids for agents that send none come from the hook records already stored.
  const pairCall = callPairing(() => (reader ??= EventLog.open(options.logPath, { readonly: true })));

  scope.post<{ Params: { platform: string; event: string } }>('/v1/hooks/:platform/:event', async (req, reply) => {
    const header = req.headers['x-beacon-log'];
    // Node reads header bytes as latin1; curl sent the path's UTF-8 bytes (a home named józef).
    const named = typeof header === 'string' ? Buffer.from(header, 'latin1').toString('utf8') : undefined;
    // The launcher names the log the collector's address file sits beside: the same spelling,
    // almost always, so the path is resolved (an lstat per component) only when it differs.
    if (named === undefined || (named !== options.logPath && canonical(named) !== own)) refuse('wrong_log');
    const adapter = hookAdapter(req.params.platform);
    const event = req.params.event;
    if (!adapter || !adapter.events.includes(event)) throw new BeaconError('not_found', `unknown hook ${quoteInput(req.params.platform, 24)}/${quoteInput(event, 40)}`);
    const provider = req.headers['x-beacon-policy-provider'];
    // The launcher resolves the provider where the agent set it; a relative name means nothing here
    // (this process's directory and PATH are not the agent's): the launcher's fallback resolves it.
    if (typeof provider === 'string' && provider !== '' && !isAbsolute(provider)) throw new BeaconError('conflict', 'the policy provider is not an absolute path: record the hook directly');
    const key = req.headers['x-beacon-hook-key'];
    const outcome = await handleHook(adapter, event, typeof req.body === 'string' ? req.body : '', {
      sink: options.sink,
      // Only what the agent's environment says about Beacon reaches the pipeline: the policy provider.
      env: typeof provider === 'string' && provider !== '' ? { BEACON_POLICY_PROVIDER: provider } : {},
      ...(typeof key === 'string' && key !== '' ? { idempotencyKey: key } : {}),
      rememberedDir,
      pairCall,
    });
    // Not stored (the writer is down or busy): no 200, so the launcher's direct writer records it.
    if (!outcome.recorded) throw new BeaconError('unavailable', outcome.errors.join('; '), { retryAfterSeconds: 1 });
    stats.received++;
    return reply.code(200).type('application/json').send(outcome.reply ?? '');
  });

  function refuse(why: HookRefusal): never {
    stats.refused[why]++;
    const { code, message } = REFUSALS[why];
    throw new BeaconError(code, message);
  }
};

const REFUSALS: Record<HookRefusal, { code: BeaconErrorCode; message: string }> = {
  token: { code: 'unauthorized', message: 'hook requests need the X-Beacon-Hook-Token of the hook-token file beside the event log' },
  content_type: { code: 'unsupported_media_type', message: 'hook requests are application/json' },
  origin: { code: 'forbidden', message: 'hook requests come from the hook launcher, never from a web page' },
  host: { code: 'host_not_allowed', message: 'hook requests go to a loopback host name (127.0.0.1, localhost, [::1])' },
  wrong_log: { code: 'conflict', message: 'this collector writes another event log: record the hook directly' },
};

function refusalOf(req: FastifyRequest, token: string): HookRefusal | undefined {
  if (!isHookLauncherHost(req.headers.host)) return 'host';
  if (req.headers.origin !== undefined) return 'origin';
  const presented = req.headers[HOOK_TOKEN_HEADER];
  if (!tokenMatches(token, typeof presented === 'string' ? presented : undefined)) return 'token';
  if (!/^application\/json\s*(?:;|$)/i.test(req.headers['content-type'] ?? '')) return 'content_type';
  return undefined;
}

/** The same file, however it is spelled (symlinks, `..`); a log not yet created compares by its path. */
function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
