import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { packageRoot } from '../config/paths';
import { BeaconError } from '../model/errors';

export type ServiceKind = 'systemd' | 'launchd';

export interface ServiceContext {
  kind: ServiceKind;
  env: NodeJS.ProcessEnv;
  node: string;
  beacon: string;
  log: string;
  port: number;
}

export const SYSTEMD_UNIT = 'beacon-collector.service';
export const LAUNCHD_LABEL = 'com.beacon.collector';

export function defaultServiceKind(): ServiceKind {
  return process.platform === 'darwin' ? 'launchd' : 'systemd';
}

/** Where the rendered file goes: the user's systemd units, or the user's LaunchAgents. */
export function serviceFile(kind: ServiceKind, env: NodeJS.ProcessEnv): string {
  const home = env.HOME || homedir();
  if (kind === 'launchd') return join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(xdg, 'systemd', 'user', SYSTEMD_UNIT);
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
// systemd's quoting: inside "…", backslash and double quote are escaped; % is the specifier sign.
const systemdEscape = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/%/g, '%%');

/** The template of this install rendered with its absolute paths. */
export function renderService(ctx: ServiceContext): string {
  const template = readFileSync(join(packageRoot(), ctx.kind === 'systemd' ? 'systemd' : 'launchd', ctx.kind === 'systemd' ? SYSTEMD_UNIT : `${LAUNCHD_LABEL}.plist`), 'utf8');
  const esc = ctx.kind === 'systemd' ? systemdEscape : xmlEscape;
  const home = ctx.env.HOME || homedir();
  const values: Record<string, string> = {
    NODE: ctx.node,
    BEACON: ctx.beacon,
    LOG: ctx.log,
    LOG_DIR: dirname(ctx.log),
    PORT: String(ctx.port),
    LOGDIR: join(home, 'Library', 'Logs', 'Beacon'),
    README: join(packageRoot(), 'README.md'),
  };
  return template.replace(/\{\{(\w+)\}\}/g, (_, k: string) => {
    if (!(k in values)) throw new BeaconError('internal', `unknown template key ${k}`);
    return esc(values[k]!);
  });
}

interface Run {
  ok: boolean;
  output: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Run {
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', timeout: 15000 });
  return { ok: r.status === 0 && !r.error, output: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? r.error.message : ''}`.trim() };
}

const NO_ACTIVATE: Run = { ok: false, output: 'BEACON_SERVICE_NO_ACTIVATE=1' };

/** systemctl --user works only inside a user session with its bus; containers and CI often have none. */
function systemdUser(env: NodeJS.ProcessEnv): Run {
  if (env.BEACON_SERVICE_NO_ACTIVATE === '1') return NO_ACTIVATE;
  return run('systemctl', ['--user', 'show-environment'], env);
}
const systemdUserAvailable = (env: NodeJS.ProcessEnv) => systemdUser(env).ok;

/** The port and log an installed service file runs the collector with (what goose must export to). */
export function installedServiceSettings(kind: ServiceKind, env: NodeJS.ProcessEnv): { file: string; port?: number; log?: string } | undefined {
  const file = serviceFile(kind, env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const port = kind === 'systemd' ? /--port\s+(\d+)/.exec(text)?.[1] : /<string>--port<\/string>\s*<string>(\d+)<\/string>/.exec(text)?.[1];
  const log = kind === 'systemd'
    ? /--log\s+"((?:[^"\\]|\\.)*)"/.exec(text)?.[1]?.replace(/\\(.)/g, '$1').replace(/%%/g, '%')
    : /<string>--log<\/string>\s*<string>([^<]*)<\/string>/.exec(text)?.[1]?.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return { file, port: port === undefined ? undefined : Number(port), log };
}

export interface ServiceState {
  kind: ServiceKind;
  file: string;
  installed: boolean;
  /** undefined: the service manager cannot be asked from here (no systemd user session, not macOS) */
  enabled?: boolean;
  running?: boolean;
  /** why the manager could not be asked */
  unreachable?: string;
}

/**
 * The same as `run`, without blocking: `beacon doctor` asks systemctl while its other probes run
 * (issue 25). A command that ran and failed is `ok: false` with its output, as `run` reports it;
 * one that could not run (missing, timed out) adds why.
 */
function runAsync(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, encoding: 'utf8', timeout: 15000 }, (error, stdout, stderr) => {
      const notRun = error && (typeof error.code !== 'number' || error.killed);
      resolve({ ok: !error, output: `${stdout ?? ''}${stderr ?? ''}${notRun ? error.message : ''}`.trim() });
    });
  });
}

/** Installed (the file), enabled (starts at login) and running, as the service manager says. */
export async function serviceState(kind: ServiceKind, env: NodeJS.ProcessEnv): Promise<ServiceState> {
  const file = serviceFile(kind, env);
  const base: ServiceState = { kind, file, installed: existsSync(file) };
  if (kind === 'systemd') {
    const session = env.BEACON_SERVICE_NO_ACTIVATE === '1' ? NO_ACTIVATE : await runAsync('systemctl', ['--user', 'show-environment'], env);
    if (!session.ok) return { ...base, unreachable: `no systemd user session reachable from here (systemctl --user: ${session.output || 'failed'})` };
    const [enabled, active] = (await Promise.all([
      runAsync('systemctl', ['--user', 'is-enabled', SYSTEMD_UNIT], env),
      runAsync('systemctl', ['--user', 'is-active', SYSTEMD_UNIT], env),
    ])).map((r) => r.output.split('\n')[0]);
    return { ...base, enabled: enabled === 'enabled', running: active === 'active' };
  }
  if (process.platform !== 'darwin' || env.BEACON_SERVICE_NO_ACTIVATE === '1') return { ...base, unreachable: 'launchctl is macOS only' };
  const r = await runAsync('launchctl', ['print', `gui/${process.getuid?.() ?? 501}/${LAUNCHD_LABEL}`], env);
  // A loaded agent with RunAtLoad starts at every login; "state = running" while it runs.
  return { ...base, enabled: r.ok, running: r.ok && /state = running/.test(r.output) };
}

export function describeServiceState(s: ServiceState): string {
  if (!s.installed) return `${s.kind}: not installed (${s.file} absent)`;
  if (s.unreachable) return `${s.kind}: installed at ${s.file}; enabled/running unknown: ${s.unreachable}`;
  return `${s.kind}: installed at ${s.file}, ${s.enabled ? 'enabled' : 'not enabled'}, ${s.running ? 'running' : 'not running'}`;
}

export function installService(ctx: ServiceContext): string[] {
  const file = serviceFile(ctx.kind, ctx.env);
  const content = renderService(ctx);
  mkdirSync(dirname(file), { recursive: true });
  const changed = !existsSync(file) || readFileSync(file, 'utf8') !== content;
  if (changed) writeFileSync(file, content, { mode: 0o644 });
  const report = [`${changed ? 'wrote' : 'kept'} ${file}`];
  if (ctx.kind === 'systemd') {
    const steps: [string, string[]][] = [['systemctl', ['--user', 'daemon-reload']], ['systemctl', ['--user', 'enable', '--now', SYSTEMD_UNIT]]];
    if (changed) steps.push(['systemctl', ['--user', 'restart', SYSTEMD_UNIT]]);
    const session = systemdUser(ctx.env);
    if (session.ok) {
      for (const [cmd, args] of steps) {
        const r = run(cmd, args, ctx.env);
        if (!r.ok) throw new BeaconError('unavailable', `${cmd} ${args.join(' ')} failed: ${r.output}`);
      }
      report.push(`enabled and started ${SYSTEMD_UNIT} (systemctl --user); it starts at every login. Logs: journalctl --user -u beacon-collector`);
      report.push('to keep it running without a login session: loginctl enable-linger');
    } else if (ctx.env.BEACON_SERVICE_NO_ACTIVATE === '1') {
      report.push(`not activated (BEACON_SERVICE_NO_ACTIVATE=1); to start it:\n  ${steps.map(([c, a]) => `${c} ${a.join(' ')}`).join('\n  ')}`);
    } else {
      // Not a success: nothing will run the collector. Say so, and what would.
      throw new BeaconError(
        'unavailable',
        `wrote ${file}, but there is no systemd user session here to enable it (systemctl --user: ${session.output || 'failed'}).\n` +
          `In a login session with systemd run:\n  ${steps.map(([c, a]) => `${c} ${a.join(' ')}`).join('\n  ')}\n` +
          'or, where there is no systemd (containers, CI, ssh without a user session), run the collector in the background: beacon collector --detach (stop: beacon collector --stop)',
      );
    }
  } else {
    const uid = process.getuid?.() ?? 501;
    if (process.platform === 'darwin' && ctx.env.BEACON_SERVICE_NO_ACTIVATE !== '1') {
      run('launchctl', ['bootout', `gui/${uid}/${LAUNCHD_LABEL}`], ctx.env); // absent on a first install: fine
      const r = run('launchctl', ['bootstrap', `gui/${uid}`, file], ctx.env);
      if (!r.ok) throw new BeaconError('unavailable', `launchctl bootstrap failed: ${r.output}`);
      report.push(`loaded ${LAUNCHD_LABEL} (launchctl); it starts at every login. Logs: ~/Library/Logs/Beacon/collector.log`);
    } else {
      report.push(`load it with:\n  launchctl bootstrap gui/${uid} ${file}`);
    }
  }
  return report;
}

export function uninstallService(kind: ServiceKind, env: NodeJS.ProcessEnv): string[] {
  const file = serviceFile(kind, env);
  const report: string[] = [];
  const installed = existsSync(file);
  if (kind === 'systemd') {
    if (systemdUserAvailable(env)) {
      run('systemctl', ['--user', 'disable', '--now', SYSTEMD_UNIT], env);
      report.push(`stopped and disabled ${SYSTEMD_UNIT}`);
    } else if (installed) {
      report.push(`systemctl --user is not reachable here: where the service runs, stop and disable it with:\n  systemctl --user disable --now ${SYSTEMD_UNIT}\n  systemctl --user daemon-reload`);
    }
  }
  if (kind === 'launchd') {
    const target = `gui/${process.getuid?.() ?? 501}/${LAUNCHD_LABEL}`;
    if (process.platform === 'darwin' && env.BEACON_SERVICE_NO_ACTIVATE !== '1') {
      run('launchctl', ['bootout', target], env);
      report.push(`unloaded ${LAUNCHD_LABEL}`);
    } else if (installed) {
      report.push(`launchctl is not reachable here: unload the agent with:\n  launchctl bootout ${target}`);
    }
  }
  if (existsSync(file)) {
    unlinkSync(file);
    report.push(`removed ${file}`);
    if (kind === 'systemd' && systemdUserAvailable(env)) run('systemctl', ['--user', 'daemon-reload'], env);
  } else {
    report.push(`nothing to remove: ${file} does not exist`);
  }
  return report;
}
