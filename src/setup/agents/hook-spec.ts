import type { AgentHookCall } from '../hook-command';
import type { AgentContext, OwnedKey, Scope, SettingsFile } from './spec';

/**
 * How one agent runs Beacon's hooks, as data: where its hook entries live, which events Beacon
 * registers, what one entry looks like in the agent's own schema (its field names, its timeout
 * unit), and any switch the agent needs before it runs a hook at all. `beacon install <agent>`
 * adds Beacon's entries beside the user's, uninstall takes exactly those out, doctor checks them;
 * none of them names an agent. Facts: ../shared/docs/agent-hooks-facts.md, checked against the CLIs.
 */
export interface HookSpec {
  /** the JSON file holding the agent's hook entries at a scope; undefined: the agent has none there (or `plugin` is used) */
  file(scope: Scope, ctx: AgentContext): SettingsFile | undefined;
  /** the events Beacon registers, spelled as the agent's configuration spells them (the adapter's names) */
  events: readonly string[];
  /** the array an event's entries are in, as a JSON path in that file */
  arrayPath(event: string): string[];
  /** Beacon's entry for `event`, running `command` */
  entry(event: string, command: string): unknown;
  /** every command an element of that array runs (to tell Beacon's own from the user's) */
  commandsOf(element: unknown): string[];
  /** keys the agent needs set before it runs any hook (Codex's `[features] hooks = true`): in their own file */
  switches?(scope: Scope, ctx: AgentContext): Array<{ file: SettingsFile; keys: OwnedKey[] }>;
  /** agents with plugins instead of command hooks (opencode): a file Beacon writes whole and owns */
  plugin?(scope: Scope, ctx: AgentContext): PluginFile | undefined;
  /** agents whose hooks are files named by their event (Cline: `~/.cline/hooks/PreToolUse.bash`): each one Beacon writes whole and owns */
  pluginFiles?(scope: Scope, ctx: AgentContext): PluginFile[];
  /** what the user must still do once the entries are written (Codex: trust them), said by install and checked by doctor */
  afterInstall?: string;
}

/** A file Beacon writes whole and owns, rendered for the launcher, log and config of the install. */
export interface PluginFile {
  path: string;
  /** the event the file is the hook of, where the file is named by it (Cline) */
  event?: string;
  render(call: Omit<AgentHookCall, 'event'>): string;
}

/** Every file Beacon owns whole at a scope: the plugin, or the agent's hook files. */
export function pluginFilesOf(hooks: HookSpec, scope: Scope, ctx: AgentContext): PluginFile[] {
  if (hooks.pluginFiles) return hooks.pluginFiles(scope, ctx);
  const one = hooks.plugin?.(scope, ctx);
  return one ? [one] : [];
}

/** The hook timeouts Beacon sets, in seconds: a ceiling on a hang, well above the launcher's own (curl's 4 s, then the adapter). */
export const HOOK_TIMEOUT_S = 10;

/** Claude's schema (Claude Code, Codex, Qwen Code, Gemini CLI): matcher groups, each with its `hooks` list of commands. */
export function matcherGroupCommands(element: unknown): string[] {
  const hooks = (element as { hooks?: unknown } | null)?.hooks;
  if (!Array.isArray(hooks)) return [];
  return hooks.flatMap((h) => (typeof h?.command === 'string' ? [h.command as string] : []));
}

/**
 * One matcher group holding Beacon's one command. Tool events match every tool (`*`); the others
 * get no matcher (on a prompt event a matcher would run over the prompt).
 */
export function matcherGroup(toolEvents: ReadonlySet<string>, hook: Record<string, unknown>, event: string): unknown {
  return { ...(toolEvents.has(event) ? { matcher: '*' } : {}), hooks: [hook] };
}
