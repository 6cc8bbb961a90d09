import type { FastifyInstance } from 'fastify';
import { BeaconError } from '../model/errors';

/**
 * Names a browser can only ever resolve to this machine: IP literals of loopback and `localhost`
 * (with `*.localhost`, which browsers resolve to loopback themselves). Any other name could be a
 * page's own domain rebound to 127.0.0.1 (DNS rebinding), so it must be declared by the user.
 */
const LOOPBACK_NAMES = /^(localhost|[a-z0-9-]+\.localhost|127(?:\.\d{1,3}){3}|\[::1\])\.?$/;

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
function normalizeAllowed(name: string): string {
  const n = name.trim().toLowerCase();
  if (n.includes(':') && !n.startsWith('[') && n.split(':').length > 2) return `[${n}]`; // a bare IPv6 literal
  return hostName(n);
}

export function isAllowedHost(host: string | undefined, extra: ReadonlySet<string>): boolean {
  // HTTP/1.0 clients may omit Host; a browser never does, so a missing Host is no rebinding attack.
  if (host === undefined || host === '') return true;
  const name = hostName(host);
  return LOOPBACK_NAMES.test(name) || extra.has(name) || extra.has(name.replace(/\.$/, ''));
}

/**
 * Every route of the collector — OTLP, hooks, health, dashboard — answers only requests whose
 * `Host` is this machine's loopback or a host the user allowed (`allowedHosts`). A page that
 * rebinds its domain to 127.0.0.1 sends its own domain as Host, so it is refused before any route
 * runs: it can neither read the dashboard nor post telemetry into the log.
 */
export function installHostGuard(app: FastifyInstance, allowedHosts: readonly string[]): { refused: number } {
  const extra = new Set(allowedHosts.filter((h) => h.trim() !== '').map(normalizeAllowed));
  const stats = { refused: 0 };
  app.addHook('onRequest', async (req) => {
    const host = req.headers.host;
    if (isAllowedHost(host, extra)) return;
    stats.refused++;
    throw new BeaconError(
      'host_not_allowed',
      `403 forbidden: Host "${hostName(String(host)).slice(0, 100)}" is not this machine's loopback name. ` +
        'Beacon answers only localhost, 127.0.0.1 and [::1]; to reach it under another name add it to the "allowedHosts" config key (BEACON_ALLOWED_HOSTS).',
    );
  });
  return stats;
}
