import { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The dashboard's logins when it has a token (issue 22 item 16, issue 29 item 8). The browser never
 * holds the token:
 * - `beacon dashboard --open` asks for a **login code** (with the token, as a Bearer header) and
 *   writes it into a 0600 page that posts it to /login (login.ts): good for one use within
 *   CODE_TTL_MS, and never on a command line (/proc/PID/cmdline is readable by every local user).
 * - a code (or `?token=`, typed by hand) starts a **session**: the cookie holds `<family>.<secret>`,
 *   both random, known only to this collector's memory; every page the browser loads replaces the
 *   secret. Cookies are not scoped by port, so a server another user runs on 127.0.0.1 receives the
 *   cookie. A session is one family of ids (the refresh-token-rotation pattern): a secret replaced
 *   less than ROTATION_GRACE_MS ago is still honoured (two tabs, a request already in flight, a
 *   response the browser dropped when you clicked on: the browser is handed the current id again);
 *   any other secret presented for the family — one replaced longer ago, so two clients hold the
 *   session and one is a copy — ends the whole family, the copier's current id and yours: you sign
 *   in again and the copier has nothing. Knowing the family (only a holder of a cookie does) lets
 *   one end the session, never keep it; no replaced secret needs remembering past its grace, so no
 *   number of page loads makes an old copy forgotten. A session also ends after SESSION_IDLE_MS
 *   unused, SESSION_MAX_MS in all, and when the collector stops.
 */
export const CODE_TTL_MS = 60_000;
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 12 * 3600_000;
export const ROTATION_GRACE_MS = 5_000;
/** Bounds on what a flood of logins or page loads can make this process hold. */
const MAX_CODES = 64;
const MAX_SESSIONS = 256;
/** Replaced secrets still inside their grace, per session; past this, the oldest counts as reused (it ends the session, never keeps it). */
const MAX_IN_GRACE = 16;

interface Family {
  createdAt: number;
  idleUntil: number;
  /** the secret of the id the browser should hold now; undefined once the session has ended */
  secret?: string;
  /** secrets replaced less than ROTATION_GRACE_MS ago, oldest first */
  justReplaced: { secret: string; at: number }[];
}

/** What a presented session id is. */
export type SessionCheck =
  | { state: 'current' } // live: a page load replaces it
  // replaced less than ROTATION_GRACE_MS ago: honoured for this request, and never answered with the current id — a
  // copier polling inside the grace would otherwise be handed each new id and follow the owner for 12 h unseen
  | { state: 'just-replaced' }
  | { state: 'reused' } // another secret of a live session (one replaced longer ago): the session has just been ended
  | { state: 'ended' } // the session ended earlier, on a reuse
  | { state: 'unknown' }; // never issued, expired, or malformed

export class DashboardLogins {
  private readonly codes = new Map<string, number>();
  /** sessions by family key, oldest first */
  private readonly families = new Map<string, Family>();

  constructor(private readonly token: string, private readonly now: () => number = Date.now) {}

  /** The token itself, compared in constant time (`Authorization: Bearer`, `?token=`). */
  isToken(offered: string): boolean {
    return sameSecret(offered, this.token);
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
    for (const [key, f] of this.families) if (expired(f, now)) this.families.delete(key);
    // the oldest first: a flood of logins ends the earliest sessions, never grows the map
    while (this.families.size >= MAX_SESSIONS) this.families.delete(this.families.keys().next().value!);
    const key = newSecret();
    const family: Family = { createdAt: now, idleUntil: now + SESSION_IDLE_MS, secret: newSecret(), justReplaced: [] };
    this.families.set(key, family);
    return `${key}.${family.secret}`;
  }

  /** What `id` is; a use of a live session extends its idle expiry (not past its maximum). A reuse ends the session. */
  check(id: string): SessionCheck {
    const now = this.now();
    const { key, secret } = parseId(id);
    const family = this.families.get(key);
    if (!family || expired(family, now)) return { state: 'unknown' };
    if (family.secret === undefined) return { state: 'ended' };
    if (sameSecret(secret, family.secret)) {
      family.idleUntil = now + SESSION_IDLE_MS;
      return { state: 'current' };
    }
    if (family.justReplaced.some((r) => now - r.at < ROTATION_GRACE_MS && sameSecret(secret, r.secret))) {
      family.idleUntil = now + SESSION_IDLE_MS;
      return { state: 'just-replaced' };
    }
    family.secret = undefined; // the copier's id and the owner's: neither opens the dashboard again
    family.justReplaced = [];
    return { state: 'reused' };
  }

  /** Replaces a current id by a new one of the same session (same age); undefined when `id` is not current. */
  rotate(id: string): string | undefined {
    const { key, secret } = parseId(id);
    const family = this.families.get(key);
    if (!family?.secret || !sameSecret(secret, family.secret)) return undefined;
    const now = this.now();
    family.justReplaced = [...family.justReplaced.filter((r) => now - r.at < ROTATION_GRACE_MS), { secret: family.secret, at: now }].slice(-MAX_IN_GRACE);
    family.secret = newSecret();
    return `${key}.${family.secret}`;
  }
}

/** `<family>.<secret>`; an id without a dot names no family. */
function parseId(id: string): { key: string; secret: string } {
  const dot = id.indexOf('.');
  return dot < 0 ? { key: '', secret: '' } : { key: id.slice(0, dot), secret: id.slice(dot + 1) };
}

const newSecret = (): string => randomBytes(32).toString('base64url');
const expired = (f: Family, now: number): boolean => f.idleUntil <= now || now - f.createdAt >= SESSION_MAX_MS;

function sameSecret(offered: string, expected: string): boolean {
  const x = Buffer.from(offered);
  const y = Buffer.from(expected);
  return x.length === y.length && timingSafeEqual(x, y);
}
