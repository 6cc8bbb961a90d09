/**
 * One hook payload of each kind for every agent Beacon answers, in the shape its real CLI sends
 * (shared/docs/agent-hooks-facts.md), with its event names as its configuration spells them: for the
 * fast-path tests and the hook bench, which run them through the command `beacon install` writes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentHookCommand } from '../../src/setup/hook-command';
import { hookCommandLine } from '../../src/setup/goose-hooks-file';
import { renderLauncher } from '../../src/setup/launcher';
import { HOOKS_BIN, tempDir } from './paths';

const CWD = '/home/alice/proj';
/** Per agent: its pre-tool event and a shell call's payload there, a prompt event, and its deny shape (reason: "pipe to shell"). */
export interface AgentHooks {
  platform: string;
  pre: [event: string, payload: (command: string, id: string) => object];
  prompt: [event: string, payload: (text: string) => object];
  deny: unknown;
}

const claudeish = (session: string) => ({ session_id: session, cwd: CWD, transcript_path: '/h/t.jsonl' });
const claudeDeny = (event: string) => ({ hookSpecificOutput: { hookEventName: event, permissionDecision: 'deny', permissionDecisionReason: 'pipe to shell' } });
export const AGENT_HOOKS: AgentHooks[] = [
  {
    platform: 'goose',
    pre: ['pre-tool', (command, id) => ({ event: 'PreToolUse', session_id: 'fp-goose', tool_call_id: id, tool_name: 'developer__shell', tool_input: { command }, working_dir: CWD })],
    prompt: ['prompt-submit', (text) => ({ event: 'UserPromptSubmit', session_id: 'fp-goose', message: text })],
    deny: { decision: 'block', reason: 'pipe to shell' },
  },
  ...['claude-code', 'codex', 'qwen-code'].map((platform): AgentHooks => ({
    platform,
    pre: ['PreToolUse', (command, id) => ({ ...claudeish(`fp-${platform}`), hook_event_name: 'PreToolUse', tool_name: platform === 'qwen-code' ? 'run_shell_command' : 'Bash', tool_input: { command }, tool_use_id: id })],
    prompt: ['UserPromptSubmit', (text) => ({ ...claudeish(`fp-${platform}`), hook_event_name: 'UserPromptSubmit', prompt: text })],
    deny: claudeDeny('PreToolUse'),
  })),
  {
    platform: 'gemini-cli',
    pre: ['BeforeTool', (command) => ({ ...claudeish('fp-gemini-cli'), hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command } })],
    prompt: ['BeforeAgent', (text) => ({ ...claudeish('fp-gemini-cli'), hook_event_name: 'BeforeAgent', prompt: text })],
    deny: { decision: 'deny', reason: 'pipe to shell' },
  },
  {
    platform: 'copilot-cli',
    pre: ['preToolUse', (command) => ({ sessionId: 'fp-copilot-cli', timestamp: 1, cwd: CWD, toolName: 'bash', toolArgs: { command, description: 'x' } })],
    prompt: ['userPromptSubmitted', (text) => ({ sessionId: 'fp-copilot-cli', timestamp: 1, cwd: CWD, prompt: text })],
    deny: { permissionDecision: 'deny', permissionDecisionReason: 'pipe to shell' },
  },
  {
    platform: 'opencode',
    pre: ['tool.execute.before', (command, id) => ({ directory: CWD, input: { tool: 'bash', sessionID: 'fp-opencode', callID: id }, output: { args: { command } } })],
    prompt: ['chat.message', (text) => ({ directory: CWD, input: { sessionID: 'fp-opencode' }, output: { parts: [{ type: 'text', text }] } })],
    deny: { decision: 'deny', reason: 'pipe to shell' },
  },
  {
    platform: 'cline',
    pre: ['PreToolUse', (command, id) => ({ taskId: 'conv_1', sessionContext: { rootSessionId: 'fp-cline' }, workspaceRoots: [CWD], hookName: 'tool_call', tool_call: { id, name: 'run_commands', input: { commands: [command] } } })],
    prompt: ['UserPromptSubmit', (text) => ({ taskId: 'conv_1', sessionContext: { rootSessionId: 'fp-cline' }, workspaceRoots: [CWD], hookName: 'prompt_submit', userPromptSubmit: { prompt: text, attachments: [] } })],
    deny: { cancel: true, errorMessage: 'pipe to shell' },
  },
];

/** An install's layout: `<base>/bin/beacon-hooks` pinning `node`, the log and the collector's files in `<base>`. */
export function hookInstallTree(node: string, home = tempDir('fast-agents-')) {
  const base = join(home, '.beacon', 'endpoint');
  mkdirSync(join(base, 'bin'), { recursive: true, mode: 0o700 });
  const launcher = join(base, 'bin', 'beacon-hooks');
  writeFileSync(launcher, renderLauncher(node, HOOKS_BIN), { mode: 0o755 });
  return { home, base, launcher, log: join(base, 'events.db') };
}

export type HookInstallTree = ReturnType<typeof hookInstallTree>;

/** The command the agent's entry runs, as install writes it. */
export const installedHookCommand = (tree: HookInstallTree, platform: string, event: string): string =>
  platform === 'goose' ? hookCommandLine(tree.launcher, tree.log, join(tree.base, 'config.json'), event) : agentHookCommand({ launcher: tree.launcher, platform, log: tree.log, config: join(tree.base, 'config.json'), event });

