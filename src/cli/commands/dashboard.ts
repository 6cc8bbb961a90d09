import { isWildcard, hostPort } from '../../config/hosts';
import { collectorConfig } from '../../config/config';
import { CONFIG_KEYS } from '../../config/config-keys';
import { openInBrowser, openSignedIn } from '../browser-login';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configFlags } from '../config-flags';
import { readDashboardToken } from '../../config/dashboard-token-file';
import { collectorPort, runningCollector } from '../setup-options';

export const spec = {
  name: 'beacon dashboard',
  summary: "print (--open: open) the URL of the collector's local dashboard",
  usage: '[--open] [--config FILE] [--port N]',
  description: `Prints the URL of the dashboard the running collector serves on its loopback port (with --open,
opens it in the default browser). Read-only: sessions, one row per tool call, events, tokens and cost.
Exits 1 when no collector answers there.`,
  options: {
    open: { type: 'boolean', help: 'open the URL in the default browser' },
    config: { type: 'string', arg: 'FILE', help: 'the config file (default ~/.beacon/endpoint/config.json)' },
    port: { type: 'string', arg: 'N', help: `the collector's port (default: the running collector's, else the installed service's, else the config's, else ${CONFIG_KEYS.port.default})` },
  },
  examples: ['beacon dashboard', 'beacon dashboard --open'],
} as const satisfies CommandSpec;

/** The dashboard's URL for a collector config: loopback host, its port, and the token when one is set. */
export function dashboardUrl(host: string, port: number, token?: string): string {
  return `http://${hostPort(isWildcard(host) ? '127.0.0.1' : host, port)}/${token ? `?token=${encodeURIComponent(token)}` : ''}`;
}

export async function run(argv: string[], { env, out, stderr: err }: Pick<CommandIO, 'env' | 'out' | 'stderr'>): Promise<number> {
  const parsed = parseCommand(spec, argv, out);
  if (!parsed) return 0;
  const { values } = parsed;
  const config = collectorConfig(values.config, env, configFlags(values));
  // the port every command means: --port, the running collector's, the installed service's, the config's
  const { port } = collectorPort(values.port, config, env);
  // The token of the collector that runs on this log, whatever this shell's config says; none running: the config's.
  const token = runningCollector(config.log) ? readDashboardToken(config.log) : config.dashboardToken;
  const url = dashboardUrl(config.host, port, token);
  const health = new URL('/health', url).toString();
  const up = await fetch(health, { signal: AbortSignal.timeout(1500) }).then((r) => r.status < 500, () => false);
  // a URL on stdout is a promise that it works: printed only when a collector answers there
  if (up) out(url);
  else err(`beacon: no collector answers at ${new URL(url).origin}; start it with "beacon collector" (or "beacon service install")
`);
  if (values.open && up && token) {
    // signed in through a private file: neither the token nor a code on the browser's command line
    const problem = await openSignedIn(new URL(url).origin, token);
    if (problem) err(`${problem}\n`);
  } else if (values.open) openInBrowser(up ? url : new URL(url).origin);
  return up ? 0 : 1;
}
