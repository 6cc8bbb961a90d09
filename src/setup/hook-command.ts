import { shellQuote } from '../model/shell-quote';
import { sourceLauncherChecked } from './launcher-guard';

/** What an agent's hook entry runs: Beacon's launcher for one agent's event, with the log and config it records into. */
export interface AgentHookCall {
  launcher: string;
  /** Beacon's harness name for the agent (`--platform`, the URL segment of the fast path) */
  platform: string;
  log: string;
  config: string;
  /** the event as the agent's configuration spells it (`PreToolUse`, `BeforeTool`, `preToolUse`…) */
  event: string;
}

/**
 * The `sh -c` line `beacon install <agent>` writes for every agent whose hooks are shell commands.
 * The arguments are set, then the launcher is sourced — after the shell has checked it, and what its
 * fast path trusts, are the user's alone, and kept the payload (launcher-guard.ts) — and the line
 * ends `exit 0` whatever happened: a hook's exit status is a verdict to some agents (Copilot CLI
 * denies the tool on exit 1 or a missing command, Gemini CLI on any exit ≥ 2, so a launcher removed
 * or unreadable would block every tool call), and every deny Beacon gives is a JSON reply on stdout
 * with exit 0. An EXIT trap rather than a subshell (a fork on every hook, the agent waiting): it
 * turns the launcher's own `exit`, and the shell's exit 2 on a syntax error in a sourced file, into
 * 0; the launcher runs Node.js as a child rather than `exec` it, so Node's status never reaches the
 * agent either.
 */
export function agentHookCommand(c: AgentHookCall): string {
  return `${agentHookArguments(c)}; trap 'exit 0' EXIT; ${sourceLauncherChecked(c.launcher, c.log)}; exit 0`;
}

const agentHookArguments = (c: AgentHookCall) => `set -- --platform ${shellQuote(c.platform)} --log ${shellQuote(c.log)} --config ${shellQuote(c.config)} ${shellQuote(c.event)}`;

const WORD = String.raw`'(?:[^']|'\\'')*'`;
const unquote = (word: string) => word.slice(1, -1).replace(/'\\''/g, "'");
const SHAPE = new RegExp(`^set -- --platform (${WORD}) --log (${WORD}) --config (${WORD}) (${WORD}); (?:trap 'exit 0' EXIT; )?(?:\\( )?\\[ -r (${WORD}) \\]`);

/**
 * The form the first installs of this command wrote (the guard on the launcher alone, in a subshell,
 * the fast path goose's only): still Beacon's, so install replaces it and uninstall removes it.
 */
const earlierAgentHookCommand = (c: AgentHookCall) => `${agentHookArguments(c)}; ( ${sourceLauncherChecked(c.launcher)} ); exit 0`;

/**
 * The call read back when the command is, character for character, one `agentHookCommand` writes
 * or wrote; anything else (a command edited by hand, another tool's) is not Beacon's: install
 * refuses to replace it without --force, uninstall leaves it, doctor names it.
 */
export function parseAgentHookCommand(command: string): AgentHookCall | undefined {
  const m = SHAPE.exec(command);
  if (!m) return undefined;
  const call: AgentHookCall = { platform: unquote(m[1]!), log: unquote(m[2]!), config: unquote(m[3]!), event: unquote(m[4]!), launcher: unquote(m[5]!) };
  return agentHookCommand(call) === command || earlierAgentHookCommand(call) === command ? call : undefined;
}

/** A command that looks like one Beacon wrote (its launcher's `--platform` shape) without being one exactly: edited by hand, or an older form. */
export function looksLikeBeacons(command: string): boolean {
  return /--platform '[^']*' --log '/.test(command) && /beacon-hooks/.test(command);
}
