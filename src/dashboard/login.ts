import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BeaconError } from '../model/errors';
import { escapeHtml } from './html';
import type { Query } from './context';
import { param } from './context';
import { html } from './html';
import { SECURITY_HEADERS } from './security';
import { CODE_TTL_MS, type DashboardLogins, SESSION_MAX_MS } from './sessions';

/**
 * How a browser signs in to a dashboard that has a token, and how a signed-in request is told
 * from any other (sessions.ts keeps the codes and sessions).
 *
 * `beacon dashboard --open` holds the token. It asks POST /api/login-code for a one-use code, writes
 * `loginPage` into a 0600 file in a 0700 directory of its own and opens the browser on that file:
 * the browser's command line (readable by every local user in /proc/PID/cmdline) names a file only
 * its user can read, never the code. The page posts the code to POST /login. That page is a file,
 * so its POST carries `Origin: null`, and /login takes no other (a page of any web origin is
 * refused): the proof against cross-site request forgery is the code itself — 144 random bits,
 * issued only for the token, good once and for CODE_TTL_MS; a page that does not have one cannot
 * sign anyone in (nor into the attacker's session: making one needs the token too).
 */
const LOGIN_PATH = '/login';
const COOKIE = 'beacon_dashboard';
const SIGN_IN = 'run `beacon dashboard --open` to sign in again, or open the URL it prints';

/** The page `beacon dashboard --open` writes to a private file: it posts the code to this collector as soon as it loads. */
export function loginPage(origin: string, code: string): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>Beacon dashboard: signing in</title></head>
<body><form method="post" action="${`${origin}${LOGIN_PATH}`}"><input type="hidden" name="code" value="${code}"><button type="submit">Sign in to the Beacon dashboard</button></form>
<script>document.forms[0].submit()</script></body></html>
`.value;
}

/** POST /api/login-code (and its /state) for the CLI, POST /login for the page it writes. */
export function loginRoutes(app: FastifyInstance, logins: DashboardLogins | undefined): void {
  const fromCli = (req: FastifyRequest, reply: FastifyReply): DashboardLogins => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
    const auth = req.headers.authorization;
    // never from a page (a browser sends Origin on a POST): only a client holding the token asks
    if (!logins || req.headers.origin !== undefined || !auth?.startsWith('Bearer ') || !logins.isToken(auth.slice(7))) {
      throw new BeaconError('forbidden', '403 forbidden: a login code is given for the dashboard token (Authorization: Bearer), to `beacon dashboard --open`');
    }
    return logins;
  };
  app.post('/api/login-code', async (req, reply) => {
    const code = fromCli(req, reply).issueCode();
    return reply.type('application/json').send({ code, expiresInSeconds: CODE_TTL_MS / 1000 });
  });
  // `beacon dashboard --open` removes its login page once the code is of no more use
  app.post('/api/login-code/state', async (req, reply) => {
    const l = fromCli(req, reply);
    const code = formField(req.body, 'code');
    return reply.type('application/json').send({ state: code === undefined ? 'gone' : l.codeState(code) });
  });
  app.post(LOGIN_PATH, async (req, reply) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== 'null') {
      throw new BeaconError('forbidden', '403 forbidden: a dashboard login is posted by the page `beacon dashboard --open` writes, not by a web page');
    }
    const code = formField(req.body, 'code');
    if (!logins || code === undefined || !logins.redeemCode(code)) {
      throw new BeaconError('forbidden', `403 forbidden: this login code was used already or has expired (a code is good once, for ${CODE_TTL_MS / 1000} s); ${SIGN_IN}`);
    }
    return signedInPage(reply, logins.startSession());
  });
}

/**
 * After the POST from a file: a page that moves on to the dashboard, not a redirect. A redirect
 * would keep the cross-site file page as the navigation's initiator, and the browser would not send
 * the SameSite=Strict cookie just set; a navigation this page starts is same-site.
 */
function signedInPage(reply: FastifyReply, session: string): FastifyReply {
  return reply
    .header('set-cookie', sessionCookie(session))
    .type('text/html; charset=utf-8')
    .send(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=/"><title>Beacon dashboard: signed in</title></head>
<body><p>Signed in. <a href="/">Open the dashboard</a></p></body></html>
`.value);
}

/**
 * Every dashboard request's first step: the security headers, then, when the dashboard has a token,
 * `?token=` once (the URL `beacon dashboard` prints), moved into a session cookie; then the session
 * cookie (a page load replaces it, a replaced one that comes back ends the session: sessions.ts),
 * or the token as a Bearer header.
 */
/**
 * What a browser gets for a page it may not see (no token, a session ended): a page saying how to
 * get in, not an OTLP Status body. Standalone — the stylesheet and script need the token too — and
 * every word of the message escaped.
 */
export function refusalPage(status: number, message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Beacon dashboard: ${status}</title></head>
<body><main><h1>Beacon dashboard</h1>
<p>${escapeHtml(message)}</p>
<p>To open it: run <code>beacon dashboard --open</code> in a terminal on this machine.</p>
</main></body></html>
`;
}

export function tokenGuard(logins: DashboardLogins | undefined, page: boolean) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) reply.header(k, v);
    if (!logins) return;
    const offered = param(req.query as Query, 'token');
    if (offered !== undefined && logins.isToken(offered)) {
      const url = new URL(req.url, 'http://x');
      url.searchParams.delete('token');
      reply.header('set-cookie', sessionCookie(logins.startSession()));
      return reply.redirect(`${url.pathname}${url.search}`, 303);
    }
    const who = signedIn(logins, req);
    if (who.state === 'reused' || who.state === 'ended') {
      throw new BeaconError('forbidden', `403 forbidden: this dashboard session was ended because a replaced cookie of it came back (another local user's server may have received it: browsers send 127.0.0.1's cookies to every port); ${SIGN_IN}`);
    }
    if (who.state === 'none' || who.state === 'unknown') throw new BeaconError('forbidden', `403 forbidden: this dashboard needs its token (the "dashboardToken" setting); ${SIGN_IN}`);
    // a page load replaces the id; one replaced a moment ago (ROTATION_GRACE_MS: a second tab, a request in flight) is
    // honoured but gets no cookie: only the browser that holds the current id can follow the session
    const next = who.state === 'current' && page ? logins.rotate(who.session) : undefined;
    if (next) reply.header('set-cookie', sessionCookie(next));
  };
}

type Login = { state: 'bearer' } | { state: 'none' } | ({ session: string } & ReturnType<DashboardLogins['check']>);

/** The request's login: the token as a Bearer header, or what its session cookie names. */
function signedIn(logins: DashboardLogins, req: FastifyRequest): Login {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ') && logins.isToken(auth.slice(7))) return { state: 'bearer' };
  const session = cookieValue(req.headers.cookie, COOKIE);
  return session === undefined ? { state: 'none' } : { session, ...logins.check(session) };
}

/** Whether a request may see the dashboard's 404 page (a reused id ends its session here too). */
export function isSignedIn(logins: DashboardLogins, req: FastifyRequest): boolean {
  const { state } = signedIn(logins, req);
  return state === 'bearer' || state === 'current' || state === 'just-replaced';
}

/** A cookie scripts cannot read and other sites never send; it names a session, never the token. */
function sessionCookie(id: string): string {
  return `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_MS / 1000}`;
}

/** One field of an urlencoded body (fastify hands the dashboard the raw bytes the receiver's parser read). */
function formField(body: unknown, name: string): string | undefined {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '';
  const v = new URLSearchParams(text).get(name)?.trim();
  return v ? v : undefined;
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

