import { claudeCodeHooks } from './claude-code/hook-claude-code';
import { clineHooks } from './cline/hook-cline';
import { codexHooks } from './codex/hook-codex';
import { copilotCliHooks } from './copilot-cli/hook-copilot-cli';
import { geminiCliHooks } from './gemini-cli/hook-gemini-cli';
import { gooseHooks } from './goose/hook-goose';
import type { HookAdapter } from './hook-adapter';
import { opencodeHooks } from './opencode/hook-opencode';
import { piHooks } from './pi/hook-pi';
import { qwenCodeHooks } from './qwen-code/hook-qwen-code';

/**
 * Every agent whose hooks Beacon answers, by its `--platform` name. Apart from registry.ts (the
 * OTLP readers): the hook process loads only this, and every millisecond of its start is the agent's.
 */
export const HOOK_ADAPTERS: readonly HookAdapter[] = [gooseHooks, claudeCodeHooks, codexHooks, geminiCliHooks, qwenCodeHooks, copilotCliHooks, opencodeHooks, clineHooks, piHooks];

export function hookAdapter(platform: string | undefined): HookAdapter | undefined {
  return HOOK_ADAPTERS.find((a) => a.platform === platform);
}
