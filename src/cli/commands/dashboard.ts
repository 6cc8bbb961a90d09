import { isWildcard, hostPort } from '../../config/hosts';
import { spawn } from 'node:child_process';
import { collectorConfig } from '../../config/config';
import { CONFIG_KEYS } from '../../config/config-keys';
import { parseCommand, type CommandIO, type CommandSpec } from '../args';
import { configFlags } from '../config-flags';
import { collectorPort } from '../setup-options';

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
  const url = dashboardUrl(config.host, port, config.dashboardToken);
  const health = new URL('/health', url).toString();
  const up = await fetch(health, { signal: AbortSignal.timeout(1500) }).then((r) => r.status < 500, () => false);
  // a URL on stdout is a promise that it works: printed only when a collector answers there
  if (up) out(url);
  else err(`beacon: no collector answers at ${new URL(url).origin}; start it with "beacon collector" (or "beacon service install")
`);
  if (values.open) openInBrowser(up ? await browserUrl(url, config.dashboardToken) : new URL(url).origin);
  return up ? 0 : 1;
}

/**
 * What the browser is started with: never the token, which its command line would show every local
 * user (/proc/PID/cmdline), but a one-use code that expires in a minute (issue 22 item 16). A
 * collector that gives no code gets the bare URL: its page asks for the printed one.
 */
async function browserUrl(url: string, token: string | undefined): Promise<string> {
  const origin = new URL(url).origin;
  if (!token) return url;
  try {
    const r = await fetch(`${origin}/api/login-code`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(1500) });
    const { code } = (await r.json()) as { code?: unknown };
    if (r.ok && typeof code === 'string' && /^[\w-]{16,64}$/.test(code)) return `${origin}/?code=${code}`;
  } catch {
    /* an older collector: the bare URL */
  }
  return `${origin}/`;
}

function openInBrowser(url: string): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined); // no opener installed: the printed URL is still there
  child.unref();
}
