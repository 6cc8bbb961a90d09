import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The dashboard's logins when it has a token (issue 22 item 16, issue 29 item 8). The browser never
 * holds the token:
 * - `beacon dashboard --open` asks for a **login code** (with the token, as a Bearer header) and
 *   writes it into a 0600 page that posts it to /login (login.ts): good for one use within
 *   CODE_TTL_MS, and never on a command line (/proc/PID/cmdline is readable by every local user).
 * - a code (or `?token=`, typed by hand) starts a **session**: a random id in the cookie, known only
 *   to this collector's memory, replaced on every page the browser loads. Cookies are not scoped by
 *   port, so a server another user runs on 127.0.0.1 receives the id. The ids a session has had
 *   form one family (the refresh-token-rotation pattern): an id replaced less than
 *   ROTATION_GRACE_MS ago is still honoured (two tabs, a request already in flight, a response the
 *   browser dropped when you clicked on: the browser is handed the current id again); an id replaced
 *   longer ago that comes back means two clients hold the session, one of them a copy, and the
 *   whole family ends — the copier's current id and yours — so you sign in again and the copier
 *   has nothing. A session also ends after SESSION_IDLE_MS unused, SESSION_MAX_MS in all, and when
 *   the collector stops.
 */
export const CODE_TTL_MS = 60_000;
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 12 * 3600_000;
export const ROTATION_GRACE_MS = 5_000;
/** Bounds on what a flood of logins or page loads can make this process hold. */
const MAX_CODES = 64;
const MAX_SESSIONS = 256;
/**
 * Replaced ids remembered to recognise their reuse, oldest forgotten first: one a page load, so a
 * day of busy use; an id older than that is refused as unknown (403) without ending its session.
 */
const MAX_REPLACED = 4096;

interface Family {
  createdAt: number;
  idleUntil: number;
  /** the id the browser should hold now; undefined once the family has ended */
  current?: string;
}

/** What a presented session id is. */
export type SessionCheck =
  | { state: 'current' } // live: a page load replaces it
  | { state: 'just-replaced'; current: string } // replaced less than ROTATION_GRACE_MS ago: honoured, the browser gets `current` again
  | { state: 'reused' } // replaced longer ago and presented again: its session has just been ended
  | { state: 'ended' } // one of a session's replaced ids came back earlier: the session is over
  | { state: 'unknown' }; // never issued, expired, or forgotten

export class DashboardLogins {
  private readonly codes = new Map<string, number>();
  /** each live session's current id */
  private readonly live = new Map<string, Family>();
  /** ids that were replaced (or belonged to an ended session), in the order they were */
  private readonly replaced = new Map<string, { family: Family; at: number }>();

  constructor(private readonly token: string, private readonly now: () => number = Date.now) {}

  /** The token itself, compared in constant time (`Authorization: Bearer`, `?token=`). */
  isToken(offered: string): boolean {
    const x = Buffer.from(offered);
    const y = Buffer.from(this.token);
    return x.length === y.length && timingSafeEqual(x, y);
  }

  /** A one-use login code, valid CODE_TTL_MS. */
  issueCode(): string {
    const now = this.now();
    for (const [c, exp] of this.codes) if (exp <= now || this.codes.size >= MAX_CODES) this.codes.delete(c);
    const code = randomBytes(24).toString('base64url');
    this.codes.set(code, now + CODE_TTL_MS);
    return code;
  }

  /** True once for a code issued less than CODE_TTL_MS ago. */
  redeemCode(code: string): boolean {
    const exp = this.codes.get(code);
    if (exp === undefined) return false;
    this.codes.delete(code);
    return exp > this.now();
  }

  /** Whether a code can still be redeemed, or expired unused, or is gone (redeemed, or never issued): `beacon dashboard --open` removes its page once it is not pending. */
  codeState(code: string): 'pending' | 'expired' | 'gone' {
    const exp = this.codes.get(code);
    return exp === undefined ? 'gone' : exp > this.now() ? 'pending' : 'expired';
  }

  /** A new session's id. */
  startSession(): string {
    const now = this.now();
    this.prune(now);
    const id = newId();
    this.live.set(id, { createdAt: now, idleUntil: now + SESSION_IDLE_MS, current: id });
    return id;
  }

  /** What `id` is; a use of a live session extends its idle expiry (not past its maximum). A reuse ends the session. */
  check(id: string): SessionCheck {
    const now = this.now();
    const live = this.live.get(id);
    if (live && !expired(live, now)) {
      live.idleUntil = now + SESSION_IDLE_MS;
      return { state: 'current' };
    }
    const old = this.replaced.get(id);
    if (!old || expired(old.family, now)) return { state: 'unknown' }; // pruned at the next login
    const { family } = old;
    if (family.current === undefined) return { state: 'ended' };
    if (this.live.get(family.current) !== family) return { state: 'unknown' }; // expired, or evicted by a flood of logins
    if (now - old.at < ROTATION_GRACE_MS) {
      family.idleUntil = now + SESSION_IDLE_MS;
      return { state: 'just-replaced', current: family.current };
    }
    this.end(family, now);
    return { state: 'reused' };
  }

  /** Replaces a current id by a new one of the same session (same age); undefined when `id` is not current. */
  rotate(id: string): string | undefined {
    const family = this.live.get(id);
    if (!family) return undefined;
    const now = this.now();
    const next = newId();
    this.live.delete(id);
    this.remember(id, family, now);
    this.live.set(next, family);
    family.current = next;
    return next;
  }

  private end(family: Family, now: number): void {
    this.live.delete(family.current!);
    this.remember(family.current!, family, now);
    family.current = undefined;
  }

  private remember(id: string, family: Family, at: number): void {
    this.replaced.set(id, { family, at });
    if (this.replaced.size > MAX_REPLACED) this.replaced.delete(this.replaced.keys().next().value!);
  }

  private prune(now: number): void {
    for (const [id, f] of this.live) if (expired(f, now)) this.live.delete(id);
    for (const [id, r] of this.replaced) if (expired(r.family, now)) this.replaced.delete(id);
    // the oldest first: a flood of logins ends the earliest sessions, never grows the map
    while (this.live.size >= MAX_SESSIONS) this.live.delete(this.live.keys().next().value!);
  }
}

const newId = (): string => randomBytes(32).toString('base64url');
const expired = (f: Family, now: number): boolean => f.idleUntil <= now || now - f.createdAt >= SESSION_MAX_MS;
