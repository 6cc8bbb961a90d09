import { spawnSync } from 'node:child_process';
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
    PORT: String(ctx.port),
    LOGDIR: join(home, 'Library', 'Logs', 'Beacon'),
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

/** systemctl --user works only inside a user session with its bus; containers and CI often have none. */
function systemdUserAvailable(env: NodeJS.ProcessEnv): boolean {
  return run('systemctl', ['--user', 'show-environment'], env).ok;
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
    if (ctx.env.BEACON_SERVICE_NO_ACTIVATE !== '1' && systemdUserAvailable(ctx.env)) {
      for (const [cmd, args] of steps) {
        const r = run(cmd, args, ctx.env);
        if (!r.ok) throw new BeaconError('unavailable', `${cmd} ${args.join(' ')} failed: ${r.output}`);
      }
      report.push(`enabled and started ${SYSTEMD_UNIT} (systemctl --user); it starts at every login. Logs: journalctl --user -u beacon-collector`);
      report.push('to keep it running without a login session: loginctl enable-linger');
    } else {
      report.push(`systemctl --user is not available here; in your login session run:\n  ${steps.map(([c, a]) => `${c} ${a.join(' ')}`).join('\n  ')}`);
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
  if (kind === 'systemd' && env.BEACON_SERVICE_NO_ACTIVATE !== '1' && systemdUserAvailable(env)) {
    run('systemctl', ['--user', 'disable', '--now', SYSTEMD_UNIT], env);
    report.push(`stopped and disabled ${SYSTEMD_UNIT}`);
  }
  if (kind === 'launchd' && process.platform === 'darwin' && env.BEACON_SERVICE_NO_ACTIVATE !== '1') {
    run('launchctl', ['bootout', `gui/${process.getuid?.() ?? 501}/${LAUNCHD_LABEL}`], env);
    report.push(`unloaded ${LAUNCHD_LABEL}`);
  }
  if (existsSync(file)) {
    unlinkSync(file);
    report.push(`removed ${file}`);
    if (kind === 'systemd' && env.BEACON_SERVICE_NO_ACTIVATE !== '1' && systemdUserAvailable(env)) run('systemctl', ['--user', 'daemon-reload'], env);
  } else {
    report.push(`nothing to remove: ${file} does not exist`);
  }
  return report;
}

export function serviceStatus(kind: ServiceKind, env: NodeJS.ProcessEnv): { file: string; installed: boolean; manager: string } {
  const file = serviceFile(kind, env);
  let manager = 'unknown (service manager not reachable from here)';
  if (kind === 'systemd' && systemdUserAvailable(env)) manager = run('systemctl', ['--user', 'is-active', SYSTEMD_UNIT], env).output || 'unknown';
  if (kind === 'launchd' && process.platform === 'darwin') manager = run('launchctl', ['print', `gui/${process.getuid?.() ?? 501}/${LAUNCHD_LABEL}`], env).ok ? 'loaded' : 'not loaded';
  return { file, installed: existsSync(file), manager };
}
