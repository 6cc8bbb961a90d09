import { claudeCode } from './claude-code';
import { codex } from './codex';
import { copilotCli } from './copilot-cli';
import { geminiCli } from './gemini-cli';
import { goose } from './goose';
import { opencode } from './opencode';
import { otelGenAi } from './otel-genai';
import { qwenCode } from './qwen-code';
import type { Source } from './source';

/** Every agent Beacon reads, first match wins; plain GenAI semantic conventions last, for the rest. */
export const SOURCES: readonly Source[] = [goose, claudeCode, codex, geminiCli, qwenCode, opencode, copilotCli, otelGenAi];
