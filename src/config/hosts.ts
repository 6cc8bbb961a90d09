import { isLoopback } from '../model/loopback';

/**
 * Loopback and Host rules, once: which listen addresses keep the collector on this machine, which
 * Host headers a browser can only ever send to this machine (the DNS-rebinding defence of every
 * route), and which the hook launcher uses. The loopback predicate itself is in model/ because the
 * forward stage, below config, needs it too.
 */

/** A listen address (config `host`) that only this machine can reach. */
export { isLoopback };

/** `host:port` as a URL or a socket address writes it: an IPv6 literal in brackets (`[::1]:4318`). */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** A listen address on every interface. */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/**
 * Names a browser can only ever resolve to this machine: IP literals of loopback and `localhost`
 * (with `*.localhost`, which browsers resolve to loopback themselves). Any other name could be a
 * page's own domain rebound to 127.0.0.1 (DNS rebinding), so it must be declared by the user.
 */
const LOOPBACK_NAMES = /^(localhost|[a-z0-9-]+\.localhost|127(?:\.\d{1,3}){3}|\[::1\])\.?$/;

/** Host names the hook launcher on this machine uses (its collector address file holds one of these). */
const HOOK_LAUNCHER_HOST = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d+)?$/i;

/** The Host header's name part, lower-cased: `Example.COM:4318` → `example.com`, `[::1]:80` → `[::1]`. */
export function hostName(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end < 0 ? h : h.slice(0, end + 1);
  }
  const colon = h.lastIndexOf(':');
  return colon < 0 ? h : h.slice(0, colon);
}

/** Normalizes a configured extra host (`box.lan`, `box.lan:4318`, `::1`) to the form `hostName` returns. */
export function normalizeAllowedHost(name: string): string {
  const n = name.trim().toLowerCase();
  if (n.includes(':') && !n.startsWith('[') && n.split(':').length > 2) return `[${n}]`; // a bare IPv6 literal
  return hostName(n);
}

/** May a request with this Host header reach the collector? Loopback names, or one the user allowed (normalized). */
export function isAllowedHost(host: string | undefined, extra: ReadonlySet<string>): boolean {
  // HTTP/1.0 clients may omit Host; a browser never does, so a missing Host is no rebinding attack.
  if (host === undefined || host === '') return true;
  const name = hostName(host);
  return LOOPBACK_NAMES.test(name) || extra.has(name) || extra.has(name.replace(/\.$/, ''));
}

/** The hook route is narrower than the Host guard: only the names the launcher itself uses. */
export function isHookLauncherHost(host: string | undefined): boolean {
  return HOOK_LAUNCHER_HOST.test(host ?? '');
}

/**
 * The names besides loopback the Host header may carry: the configured `allowedHosts`, and an
 * address bound with --allow-remote, reachable under its own name.
 */
export function allowedHostNames(allowedHosts: string, listenHost: string): string[] {
  return [...allowedHosts.split(','), ...(isLoopback(listenHost) || isWildcard(listenHost) ? [] : [listenHost])];
}
