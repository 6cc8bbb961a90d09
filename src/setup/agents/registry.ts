import { claudeCode } from './claude-code';
import { codex } from './codex';
import { copilotCli } from './copilot-cli';
import { geminiCli } from './gemini-cli';
import { opencode } from './opencode';
import { pi } from './pi';
import { qwenCode } from './qwen-code';
import type { AgentSpec } from './spec';

/** Every agent `beacon install` sets up besides goose: one line each. */
export const AGENT_SPECS: readonly AgentSpec[] = [claudeCode, codex, geminiCli, qwenCode, opencode, copilotCli, pi];

export const AGENT_IDS = AGENT_SPECS.map((a) => a.id);

/** The agent a name means (Beacon's name or an alias, any case), or undefined. */
export function findAgent(name: string): AgentSpec | undefined {
  const n = name.trim().toLowerCase();
  return AGENT_SPECS.find((a) => a.id === n || a.aliases.includes(n));
}
