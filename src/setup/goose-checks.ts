import { isAbsolute, resolve } from 'node:path';
import { escapeControls } from '../model/terminal';
import type { Check } from './doctor';
import { isBeaconCommand, type HookCommand } from './goose-hooks-file';
import { probeLauncher } from './launcher-probe';
import { gooseDesktopApps } from './goose-paths';
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
  const elsewhere = [...new Set(commands.map((c) => c.launcher).filter((l) => resolve(cwd, l) !== launcher))];
  if (elsewhere.length > 0) {
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
