import type { FastifyInstance } from 'fastify';
import { hostName, isAllowedHost, normalizeAllowedHost } from '../config/hosts';
import { BeaconError } from '../model/errors';

/**
 * Every route of the collector — OTLP, hooks, health, dashboard — answers only requests whose
 * `Host` is this machine's loopback or a host the user allowed (`allowedHosts`). A page that
 * rebinds its domain to 127.0.0.1 sends its own domain as Host, so it is refused before any route
 * runs: it can neither read the dashboard nor post telemetry into the log. The rules are src/config/hosts.ts.
 */
export function installHostGuard(app: FastifyInstance, allowedHosts: readonly string[]): { refused: number } {
  const extra = new Set(allowedHosts.filter((h) => h.trim() !== '').map(normalizeAllowedHost));
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
