import { BeaconError } from '../../model/errors';
import { didYouMean } from '../../model/suggest';
import { claudeCode } from './claude-code';
import { cline } from './cline';
import { codex } from './codex';
import { copilotCli } from './copilot-cli';
import { geminiCli } from './gemini-cli';
import { goose } from './goose';
import { opencode } from './opencode';
import { pi } from './pi';
import { qwenCode } from './qwen-code';
import type { AgentSpec } from './spec';

/** Every agent `beacon install`, `uninstall` and `doctor` set up and check: one line each. */
export const AGENT_SPECS: readonly AgentSpec[] = [goose, claudeCode, codex, geminiCli, qwenCode, opencode, copilotCli, cline, pi];

export const AGENT_IDS = AGENT_SPECS.map((a) => a.id);

/** The agent a name means (Beacon's name, an alias or a spelling it matches, any case), or undefined. */
export function findAgent(name: string): AgentSpec | undefined {
  const n = name.trim().toLowerCase();
  return AGENT_SPECS.find((a) => a.id === n || a.aliases.includes(n) || a.matches?.(n));
}

/** The agent a command names, or a usage error saying which names there are (or what the name is instead). */
export function namedAgent(name: string, command: string): AgentSpec {
  const agent = findAgent(name);
  if (agent) return agent;
  for (const a of AGENT_SPECS) {
    const why = a.notThis?.(name);
    if (why) throw new BeaconError('usage', why);
  }
  throw new BeaconError('usage', `${command}: unknown agent "${name}"${didYouMean(name, AGENT_SPECS.flatMap((a) => [a.id, ...a.aliases]))} (expected ${AGENT_IDS.join(', ')})`);
}
