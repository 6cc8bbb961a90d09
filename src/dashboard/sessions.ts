import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The dashboard's logins when it has a token (issue 22 item 16). The browser never holds the token:
 * - `beacon dashboard --open` asks for a **login code** (with the token, as a Bearer header) and
 *   opens `/?code=…`: a browser's command line is readable by every local user (/proc/PID/cmdline),
 *   so what it carries is good for one use within CODE_TTL_MS.
 * - a code (or `?token=`, typed by hand) becomes a **session**: a random id in the cookie, known
 *   only to this collector's memory. Cookies are not scoped by port, so a server another user runs
 *   on 127.0.0.1 receives it; the id is replaced on every page the browser loads (the old one lives
 *   ROTATION_GRACE_MS more, for requests already in flight), expires after SESSION_IDLE_MS unused
 *   and SESSION_MAX_MS in all, and every session ends when the collector stops.
 */
export const CODE_TTL_MS = 60_000;
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 12 * 3600_000;
export const ROTATION_GRACE_MS = 5_000;
/** Bounds on what a flood of logins can make this process hold. */
const MAX_CODES = 64;
const MAX_SESSIONS = 256;

interface Session {
  createdAt: number;
  /** idle expiry, or the end of the grace once replaced */
  expiresAt: number;
  replaced?: boolean;
}

export class DashboardLogins {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, Session>();

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

  /** A new session's id. */
  startSession(): string {
    const now = this.now();
    this.prune(now);
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, { createdAt: now, expiresAt: now + SESSION_IDLE_MS });
    return id;
  }

  /** Whether `id` names a live session; a use extends its idle expiry (not past its maximum). */
  touch(id: string): boolean {
    const now = this.now();
    const s = this.sessions.get(id);
    if (!s || s.expiresAt <= now || now - s.createdAt >= SESSION_MAX_MS) {
      if (s) this.sessions.delete(id);
      return false;
    }
    if (!s.replaced) s.expiresAt = now + SESSION_IDLE_MS;
    return true;
  }

  /** Replaces a live session by a new id of the same age; the old id lives ROTATION_GRACE_MS more. */
  rotate(id: string): string | undefined {
    const now = this.now();
    const s = this.sessions.get(id);
    if (!s || s.expiresAt <= now || s.replaced) return undefined;
    s.expiresAt = Math.min(s.expiresAt, now + ROTATION_GRACE_MS);
    s.replaced = true;
    this.prune(now);
    const next = randomBytes(32).toString('base64url');
    this.sessions.set(next, { createdAt: s.createdAt, expiresAt: now + SESSION_IDLE_MS });
    return next;
  }

  private prune(now: number): void {
    for (const [id, s] of this.sessions) if (s.expiresAt <= now || now - s.createdAt >= SESSION_MAX_MS) this.sessions.delete(id);
    // the oldest first: a flood of logins ends the earliest sessions, never grows the map
    while (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
  }
}
