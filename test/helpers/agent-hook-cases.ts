import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import type { Home } from './fake-home';

/** The six agents' hook files as test/integration/agent-install-hooks*.test.ts use them: where, which events, both schemas. */
export const CLEAN = { XDG_CONFIG_HOME: '', CODEX_HOME: '', CLAUDE_CONFIG_DIR: '', COPILOT_HOME: '' };
export const BOM = '\uFEFF';

export interface HookCase {
  agent: string;
  /** the file holding its hook entries */
  file: (h: Home, scope?: 'user' | 'project') => string;
  events: string[];
  /** a user's own entry for an event, in the agent's schema */
  userEntry: (event: string) => unknown;
  /** Beacon's entry as the agent's schema wants it (field names, timeout unit), the command given */
  beaconEntry: (event: string, command: string) => unknown;
  /** the file may hold comments and a BOM (Codex reads hooks.json with a strict JSON parser: neither) */
  jsonc: boolean;
}

const claudeGroup = (tools: string[], timeout: number, name?: boolean) => (event: string, command: string) => ({
  ...(tools.includes(event) ? { matcher: '*' } : {}), hooks: [{ type: 'command', command, ...(name ? { name: `beacon-${event}` } : {}), timeout }],
});
const userGroup = (event: string) => ({ matcher: 'Bash', hooks: [{ type: 'command', command: `echo mine ${event}` }] });

export const HOOK_CASES: HookCase[] = [
  {
    agent: 'claude-code', file: (h, s) => (s === 'project' ? join(h.cwd, '.claude', 'settings.local.json') : join(h.home, '.claude', 'settings.json')),
    events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SessionEnd'],
    userEntry: userGroup, beaconEntry: claudeGroup(['PreToolUse', 'PostToolUse', 'PostToolUseFailure'], 10), jsonc: true,
  },
  {
    agent: 'codex', file: (h) => join(h.home, '.codex', 'hooks.json'),
    events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
    userEntry: userGroup, beaconEntry: claudeGroup(['PreToolUse', 'PostToolUse'], 10), jsonc: false,
  },
  {
    agent: 'gemini-cli', file: (h, s) => join(s === 'project' ? h.cwd : h.home, '.gemini', 'settings.json'),
    events: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent', 'SessionEnd'],
    userEntry: userGroup, beaconEntry: claudeGroup(['BeforeTool', 'AfterTool'], 10_000, true), jsonc: true,
  },
  {
    agent: 'qwen-code', file: (h, s) => join(s === 'project' ? h.cwd : h.home, '.qwen', 'settings.json'),
    events: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop', 'SessionEnd'],
    userEntry: userGroup, beaconEntry: claudeGroup(['PreToolUse', 'PostToolUse', 'PostToolUseFailure'], 10_000, true), jsonc: true,
  },
  {
    agent: 'copilot-cli', file: (h) => join(h.home, '.copilot', 'settings.json'),
    events: ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'agentStop', 'sessionEnd'],
    userEntry: (event) => ({ type: 'command', bash: `echo mine ${event}`, timeoutSec: 5 }),
    beaconEntry: (_event, command) => ({ type: 'command', bash: command, timeoutSec: 10 }), jsonc: true,
  },
];

export const launcherOf = (h: Home) => join(h.home, '.beacon', 'endpoint', 'bin', 'beacon-hooks');
export const callOf = (h: Home, platform: string) => ({ launcher: launcherOf(h), platform, log: join(h.home, '.beacon', 'endpoint', 'events.db'), config: join(h.home, '.beacon', 'endpoint', 'config.json') });

/** The user's file: their own entry on every event but the last (Beacon creates that list), other keys, and — where the agent reads them — comments, a BOM; CRLF line ends. */
export function userFile(c: HookCase): string {
  const mine = c.events.slice(0, -1).map((e) => `    "${e}": [\r\n      ${JSON.stringify(c.userEntry(e))}${c.jsonc ? ' // mine' : ''}\r\n    ]`).join(',\r\n');
  const body = `{\r\n${c.jsonc ? '  // my settings, my hooks\r\n' : ''}  "theme": "dark",\r\n  "hooks": {\r\n${mine}\r\n  }\r\n}\r\n`;
  return c.jsonc ? BOM + body : body;
}

export const parsed = (text: string) => parseJsonc(text.replace(/^\uFEFF/, ''), [], { allowTrailingComma: true }) as { hooks: Record<string, unknown[]> };
export function put(file: string, text: string | Buffer): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}
