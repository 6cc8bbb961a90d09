import { readdirSync, rmdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { BeaconError } from '../model/errors';
import type { TreeOptions } from '../model/tree-files';

/** The install's file writer (node:crypto, the group lookup): loaded when used, not by doctor's launcher prestart (issue 33). */
const treeFiles = () => require('../model/tree-files') as typeof import('../model/tree-files');
import { pluginRoot } from './goose-paths';
import { shellQuote } from '../model/shell-quote';
import { sourceLauncherChecked } from './launcher-guard';

/**
 * The registrations: goose event → subcommand and timeout (seconds: goose's unit, not ms).
 * PreToolUseResult (goose ≥ 1.50, non-blocking) is the only report of a call another plugin's
 * policy denied: goose skips the post hooks after a deny. Older goose ignores the unknown name.
 */
export const REGISTRATIONS: [event: string, sub: string, timeout: number][] = [
  ['PostToolUse', 'post-tool', 10],
  ['PostToolUseFailure', 'post-tool', 10],
  ['PreToolUse', 'pre-tool', 10],
  ['PreToolUseResult', 'pre-tool-result', 10],
  ['SessionEnd', 'session-end', 45],
  ['SessionStart', 'session-start', 10],
  ['Stop', 'stop', 45],
  ['UserPromptSubmit', 'prompt-submit', 30],
];

/**
 * What goose runs (`sh -c`): the launcher *sourced* by that shell with the arguments set first, not
 * executed — one /bin/sh start less on every hook — and only once the shell has checked it, and what
 * its fast path trusts, are the user's alone (launcher-guard.ts): another user who could write
 * `~/.beacon/endpoint` would otherwise run their file as the user, or be handed the hook (issue 29).
 */
export function hookCommandLine(hooksBin: string, log: string, config: string, sub: string): string {
  return `${hookArguments(log, config, sub)}; ${sourceLauncherChecked(hooksBin, log)}`;
}

const hookArguments = (log: string, config: string, sub: string) => `set -- --platform goose --log ${shellQuote(log)} --config ${shellQuote(config)} ${sub}`;

/**
 * The forms earlier installs wrote: recognized, so that `beacon install goose` replaces them and
 * doctor names them; never written again. The first checked the launcher only, not what its fast
 * path trusted, and ran its `find` before reading the payload rather than beside it; the others
 * sourced or executed the launcher unchecked.
 */
const EARLIER_FORMS: { form: (bin: string, log: string, config: string, sub: string) => string; checked: boolean }[] = [
  { form: (bin, log, config, sub) => `${hookArguments(log, config, sub)}; ${sourceLauncherChecked(bin)}`, checked: true },
  { form: (bin, log, config, sub) => `${hookArguments(log, config, sub)}; [ -r ${shellQuote(bin)} ] && . ${shellQuote(bin)}`, checked: false },
  { form: (bin, log, config, sub) => `${shellQuote(bin)} --platform goose --log ${shellQuote(log)} --config ${shellQuote(config)} ${sub}`, checked: false },
];

/** A hook command Beacon wrote, read back: what it runs, with which arguments, and whether it checks the launcher first. */
export interface HookCommand {
  launcher: string;
  log: string;
  config: string;
  sub: string;
  /** false: an earlier install's form, which sources (or executes) the launcher without checking it */
  checked: boolean;
}

const WORD = String.raw`'(?:[^']|'\\'')*'`;
const unquote = (word: string) => word.slice(1, -1).replace(/'\\''/g, "'");
const ARGUMENTS = new RegExp(`--platform goose --log (${WORD}) --config (${WORD}) ([a-z-]+)`);
const LAUNCHER = new RegExp(`^(${WORD}) --platform |; \\[ -r (${WORD}) \\]`);

/**
 * The command read back when it is, character for character, one Beacon writes or wrote: anything
 * else in Beacon's hooks file (a command with more in it, another launcher's spelling) is not
 * Beacon's, and doctor and install treat it as foreign.
 */
export function parseHookCommand(command: string): HookCommand | undefined {
  const args = ARGUMENTS.exec(command);
  const bin = LAUNCHER.exec(command);
  if (!args || !bin) return undefined;
  const [launcher, log, config, sub] = [unquote(bin[1] ?? bin[2]!), unquote(args[1]!), unquote(args[2]!), args[3]!];
  if (command === hookCommandLine(launcher, log, config, sub)) return { launcher, log, config, sub, checked: true };
  const earlier = EARLIER_FORMS.find(({ form }) => command === form(launcher, log, config, sub));
  if (earlier) return { launcher, log, config, sub, checked: earlier.checked };
  return undefined;
}

/**
 * hooks.json with no matcher on any rule (on UserPromptSubmit the matcher would run over the prompt),
 * explicit timeouts as ceilings on a hang, and `on_failure: allow` on the one blocking tool hook.
 */
export function renderHooksJson(hooksBin: string, log: string, config: string): string {
  const hooks: Record<string, unknown[]> = {};
  for (const [event, sub, timeout] of REGISTRATIONS) {
    hooks[event] = [{ hooks: [{ type: 'command', command: hookCommandLine(hooksBin, log, config, sub), timeout, ...(event === 'PreToolUse' ? { on_failure: 'allow' } : {}) }] }];
  }
  return `${JSON.stringify({ hooks }, null, 2)}\n`;
}

/** Beacon's own commands are recognized by being exactly what Beacon writes, not by a word they hold. */
export function isBeaconCommand(command: string): boolean {
  return parseHookCommand(command) !== undefined;
}

/** Every command in a hooks file, whatever its shape; unparseable files hold none. */
export function commandsIn(text: string): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  const out: string[] = [];
  const hooks = (doc as { hooks?: unknown })?.hooks;
  if (typeof hooks !== 'object' || hooks === null) return out;
  for (const rules of Object.values(hooks as Record<string, unknown>)) {
    if (!Array.isArray(rules)) continue;
    for (const rule of rules) {
      for (const action of Array.isArray(rule?.hooks) ? rule.hooks : []) {
        if (typeof action?.command === 'string' && action.command.trim() !== '') out.push(action.command);
      }
    }
  }
  return out;
}

export interface InstallResult {
  file: string;
  changed: boolean;
}

/** hooks.json through the checked tree (model/tree-files.ts): never through a symlink, never in a directory others may write. */
const MAX_HOOKS_BYTES = 1 << 20;
const readHooks = (file: string, tree: TreeOptions) => treeFiles().readInTree(file, MAX_HOOKS_BYTES, tree)?.toString('utf8');

/** The commands in a hooks file that Beacon did not write. */
const foreignCommands = (text: string): string[] => commandsIn(text).filter((c) => !isBeaconCommand(c));

/**
 * Refuses (naming them) when the hooks file holds commands Beacon did not write, or when its
 * directories are unsafe; else the file's text as read (undefined: no file yet).
 */
export function checkInstallable(file: string, tree: TreeOptions = {}): string | undefined {
  const text = readHooks(file, tree);
  if (text === undefined) return undefined;
  const foreign = foreignCommands(text);
  if (foreign.length > 0) {
    throw new BeaconError('bad_data', `refusing to overwrite ${file}: it holds hooks Beacon did not write:\n  ${foreign.join('\n  ')}\nMove them to a plugin of their own, then install again.`);
  }
  return text;
}

/** Writes the hooks file; refuses (naming them) when it holds commands Beacon did not write. */
export function installHooksFile(file: string, content: string, tree: TreeOptions = {}): InstallResult {
  if (checkInstallable(file, tree) === content) return { file, changed: false };
  treeFiles().writeInTree(file, content, { ...tree, newMode: 0o644 });
  return { file, changed: true };
}

/** Removes Beacon's hooks file and the directories that leaves empty inside the plugin; nothing else. */
export function uninstallHooksFile(file: string, agentsDir: string, tree: TreeOptions = {}): { file: string; removed: boolean } {
  const text = readHooks(file, tree);
  if (text === undefined) return { file, removed: false };
  const foreign = foreignCommands(text);
  if (foreign.length > 0) {
    throw new BeaconError('bad_data', `refusing to remove ${file}: it holds hooks Beacon did not write:\n  ${foreign.join('\n  ')}`);
  }
  treeFiles().removeInTree(file, tree);
  const top = pluginRoot(agentsDir);
  for (let dir = dirname(file); dir.startsWith(top); dir = dirname(dir)) {
    if (readdirSync(dir).length > 0) break;
    rmdirSync(dir);
  }
  return { file, removed: true };
}
