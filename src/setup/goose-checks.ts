import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { escapeControls } from '../model/terminal';
import { shellQuote } from '../model/shell-quote';
import type { Check } from './doctor';
import { isBeaconCommand } from './hooks-file';
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
  const apps = ['/Applications/Goose.app', join(env.HOME ?? '', 'Applications', 'Goose.app'), '/usr/lib/goose/Goose', '/opt/Goose/Goose', '/usr/bin/Goose'];
  const app = apps.find(isExecutable);
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

/** Runs the launcher as goose would (a minimal PATH); async, so doctor's other checks run beside its Node.js start. */
export async function probeLauncher(bin: string, count: number): Promise<Check> {
  const r = await new Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; error?: Error }>((resolve) => {
    const child = spawn('sh', ['-c', `${shellQuote(bin)} --version`], { timeout: 10_000, env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d));
    child.stderr!.on('data', (d: Buffer) => (stderr += d));
    child.on('error', (error) => resolve({ status: null, signal: null, stdout, stderr, error }));
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
  const said = r.stdout.trim();
  if (r.status === 0 && /^beacon-hooks \S+/.test(said)) return { id: 'plugin-command', status: 'ok', message: `${count} hook commands run ${bin}, which answers (${said})` };
  const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').slice(0, 3).join(' | ')}` : said ? `, said "${said.slice(0, 80)}"` : ''}`;
  return { id: 'plugin-command', status: 'fail', message: `the hook launcher ${bin} cannot start its hook adapter (${why}): a hook the collector does not answer itself is lost`, fix: 'beacon install goose (rewrites the launcher for this Node.js and install)' };
}

