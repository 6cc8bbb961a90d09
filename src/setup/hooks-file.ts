import { readdirSync, rmdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { BeaconError } from '../model/errors';
import { readInTree, removeInTree, writeInTree, type TreeOptions } from '../model/tree-files';
import { pluginRoot } from './goose-paths';
import { shellQuote } from '../model/shell-quote';

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
 * executed — one /bin/sh start less on every hook (≈ 0.7 ms of a ≈ 11 ms fast path, more under
 * load). The `[ -r … ] &&` guard matters: `.` of a missing file makes dash exit 2, which goose reads
 * as a policy *deny* of the tool call; with the guard a missing launcher is exit 1, a hook failure
 * goose ignores (`on_failure: allow`), as an executed launcher's 127 was.
 */
export function hookCommandLine(hooksBin: string, log: string, config: string, sub: string): string {
  const launcher = shellQuote(hooksBin);
  return `set -- --platform goose --log ${shellQuote(log)} --config ${shellQuote(config)} ${sub}; [ -r ${launcher} ] && . ${launcher}`;
}

/** The launcher a hook command runs: the file it sources (as Beacon writes them now), or the executable it starts with (earlier installs). */
export function launcherOf(command: string): string {
  const sourced = /\[ -r ('(?:[^']|'\\'')*'|\S+) \] && \. \1\s*$/.exec(command);
  return firstWord(sourced ? sourced[1]! : command);
}

/** The subcommand a Beacon hook command runs (`pre-tool`, …), in either form launcherOf reads. */
export function subcommandOf(command: string): string | undefined {
  return /\s([a-z-]+)(?:;\s*\[ -r |\s*$)/.exec(command)?.[1];
}

/** The first word of a shell command line (single-quoted as Beacon writes it, or bare). */
function firstWord(command: string): string {
  const s = command.trimStart();
  if (!s.startsWith("'")) return s.split(/\s+/)[0]!;
  let out = '';
  let i = 1;
  while (i < s.length) {
    const end = s.indexOf("'", i);
    if (end < 0) return out + s.slice(i);
    out += s.slice(i, end);
    if (s.startsWith("\\''", end + 1)) {
      out += "'";
      i = end + 4;
    } else return out;
  }
  return out;
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

/** Beacon's own commands are recognized by what they run, not by the file's existence. */
export function isBeaconCommand(command: string): boolean {
  return /beacon-hooks/.test(command) && /--platform\s+goose\b/.test(command);
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
const readHooks = (file: string, tree: TreeOptions) => readInTree(file, MAX_HOOKS_BYTES, tree)?.toString('utf8');

/** Refuses (naming them) when the hooks file holds commands Beacon did not write, or when its directories are unsafe. */
export function checkInstallable(file: string, tree: TreeOptions = {}): void {
  const text = readHooks(file, tree);
  if (text === undefined) return;
  const foreign = commandsIn(text).filter((c) => !isBeaconCommand(c));
  if (foreign.length > 0) {
    throw new BeaconError('bad_data', `refusing to overwrite ${file}: it holds hooks Beacon did not write:\n  ${foreign.join('\n  ')}\nMove them to a plugin of their own, then install again.`);
  }
}

/** Writes the hooks file; refuses (naming them) when it holds commands Beacon did not write. */
export function installHooksFile(file: string, content: string, tree: TreeOptions = {}): InstallResult {
  checkInstallable(file, tree);
  if (readHooks(file, tree) === content) return { file, changed: false };
  writeInTree(file, content, { ...tree, newMode: 0o644 });
  return { file, changed: true };
}

/** Removes Beacon's hooks file and the directories that leaves empty inside the plugin; nothing else. */
export function uninstallHooksFile(file: string, agentsDir: string, tree: TreeOptions = {}): { file: string; removed: boolean } {
  const text = readHooks(file, tree);
  if (text === undefined) return { file, removed: false };
  const foreign = commandsIn(text).filter((c) => !isBeaconCommand(c));
  if (foreign.length > 0) {
    throw new BeaconError('bad_data', `refusing to remove ${file}: it holds hooks Beacon did not write:\n  ${foreign.join('\n  ')}`);
  }
  removeInTree(file, tree);
  const top = pluginRoot(agentsDir);
  for (let dir = dirname(file); dir.startsWith(top); dir = dirname(dir)) {
    if (readdirSync(dir).length > 0) break;
    rmdirSync(dir);
  }
  return { file, removed: true };
}
