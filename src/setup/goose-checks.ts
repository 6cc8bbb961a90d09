import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { escapeControls } from '../model/terminal';
import type { Check } from './doctor';
import { commandsIn, isBeaconCommand, parseHookCommand, type HookCommand } from './goose-hooks-file';
import { prestartLauncher, probeLauncher } from './launcher-probe';
import { gooseDesktopApps, gooseLocations, hooksFile, pluginRoot } from './goose-paths';
import { findOnPath, isExecutable } from '../model/executables';

/**
 * Doctor's checks that goose itself is there and that Beacon's plugin runs nothing but Beacon
 * (issue 24 item 7: with no goose installed every check said ok, and a foreign command added to
 * Beacon's own hooks.json went uncounted while `beacon install` refuses that file).
 */

/** goose on the PATH (the CLI), or the desktop app where it installs itself. */
export function gooseBinaryCheck(env: NodeJS.ProcessEnv): Check {
  const onPath = findOnPath('goose', env.PATH);
  if (onPath) return { id: 'goose', status: 'ok', message: `goose CLI: ${onPath}` };
  const app = gooseDesktopApps(env.HOME ?? '').find(isExecutable);
  if (app) return { id: 'goose', status: 'ok', message: `goose desktop app: ${app}` };
  return {
    id: 'goose', status: 'warn',
    message: 'goose is not installed here (no goose on PATH, no desktop app): nothing will export or run the hooks until it is',
    fix: 'install goose (https://github.com/aaif-goose/goose), then start a session',
  };
}

/** Commands in Beacon's hooks file that Beacon did not write: goose runs them on every hook. */
export function foreignHookChecks(file: string, commands: string[]): Check[] {
  const foreign = commands.filter((c) => !isBeaconCommand(c));
  if (foreign.length === 0) return [];
  return [{
    id: 'plugin-foreign', status: 'fail',
    message: `${file} holds ${foreign.length === 1 ? 'a command' : `${foreign.length} commands`} Beacon did not write, which goose runs with every hook payload: ${foreign.map((c) => escapeControls(c)).join(' | ')}`,
    fix: 'remove them (move them to a plugin of their own); beacon install goose refuses this file until then',
  }];
}

/** The hooks file goose uses (project scope before user scope), its plugin's directory, and the install that rewrites it. */
export interface ActivePlugin {
  file: string;
  root: string;
  reinstall: string;
}

/** Beacon's plugin as goose finds it: each scope's hooks file that exists (project first), the commands of the first. */
export function goosePluginFiles(env: NodeJS.ProcessEnv, cwd: string) {
  const loc = gooseLocations(env, cwd);
  const scopes = [
    { name: 'project', agents: loc.projectAgentsDir },
    { name: 'user', agents: loc.userAgentsDir },
  ].map((s) => ({ ...s, file: hooksFile(s.agents), root: pluginRoot(s.agents) }));
  const present = scopes.filter((s) => existsSync(s.file));
  const active = present[0]; // goose takes project scope first and deduplicates by name
  const commands = active ? commandsIn(readFileSync(active.file, 'utf8')) : [];
  return { scopes, present, active, commands, ours: commands.map(parseHookCommand).filter((c) => c !== undefined) };
}

/** Whether launcherChecks runs `launcher`: the hooks file names it, and only it. */
function runsOnly(commands: HookCommand[], launcher: string, cwd: string): boolean {
  return commands.length > 0 && commands.every((c) => resolve(cwd, c.launcher) === launcher);
}

/**
 * `beacon doctor [goose]` starts goose's launcher run before it loads its other checks' modules
 * (main.ts): where goose's doctor will run it (a plugin whose commands name only Beacon's launcher;
 * such a plugin is also what makes goose found), launcher-probe.ts starts it now for launcherChecks.
 */
export function prestartGooseLauncher(env: NodeJS.ProcessEnv, cwd: string, launcher: string): void {
  try {
    if (runsOnly(goosePluginFiles(env, cwd).ours, launcher, cwd)) prestartLauncher(launcher);
  } catch {
    // an unreadable hooks file: goose's doctor reads it again and says so
  }
}

/**
 * The launcher check, from what the active hooks file names (issue 29 item 1): doctor runs nothing a
 * hooks file names — a project's plugin, a repository's `bin/beacon-hooks`, would run as the user —
 * only Beacon's own launcher, once it passes the checks the hook command makes. A file naming
 * another launcher is reported with what it would run; one in an earlier install's unchecked form,
 * with the command that rewrites it.
 */
export async function launcherChecks(plugin: ActivePlugin, commands: HookCommand[], launcher: string, cwd: string): Promise<Check[]> {
  const { file, root, reinstall } = plugin;
  if (commands.length === 0) return [{ id: 'plugin-command', status: 'fail', message: `${file} has no beacon-hooks --platform goose command`, fix: reinstall }];
  if (!runsOnly(commands, launcher, cwd)) {
    const elsewhere = [...new Set(commands.map((c) => c.launcher).filter((l) => resolve(cwd, l) !== launcher))];
    const named = elsewhere.map((l) => escapeControls(isAbsolute(l) ? l : `${l} (${resolve(cwd, l)} in a session started here)`)).join(', ');
    return [{
      id: 'plugin-command', status: 'fail',
      message: `${file} runs ${named} on every hook, not Beacon's launcher ${launcher}; doctor ran none of it, and goose would run it as you`,
      fix: `if you did not install it (a repository you cloned can bring it), remove ${root}; otherwise ${reinstall}`,
    }];
  }
  const unchecked = commands.filter((c) => !c.checked).length;
  return [
    await probeLauncher(launcher, { id: 'plugin-command', count: commands.length, reinstall }),
    ...(unchecked === 0 ? [] : [{
      id: 'plugin-unchecked', status: 'fail' as const,
      message: `${unchecked} of ${commands.length} hook commands in ${file} (an earlier install's) run ${launcher} without checking that it and its directories are yours alone: another user who could write them would run as you`,
      fix: `${reinstall} (rewrites them)`,
    }]),
  ];
}
