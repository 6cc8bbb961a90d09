import { claudeCode } from './claude-code';
import { codex } from './codex';
import { copilotCli } from './copilot-cli';
import { geminiCli } from './gemini-cli';
import { goose } from './goose';
import { opencode } from './opencode';
import { otelGenAi } from './otel-genai';
import { qwenCode } from './qwen-code';
import type { Source } from './source';
import { HOOK_ADAPTERS } from './hook-registry';
import { SESSION_STORES } from './store-registry';
import { STREAM_ADAPTERS } from './stream-registry';

/** Every agent Beacon reads, first match wins; plain GenAI semantic conventions last, for the rest. */
export const SOURCES: readonly Source[] = [goose, claudeCode, codex, geminiCli, qwenCode, opencode, copilotCli, otelGenAi];

/**
 * The harness names of the agents Beacon has a reader for, by any path (filters and pickers offer
 * these): an agent with no OTLP (Cline, Pi) is one of them too.
 */
export const AGENT_HARNESSES: readonly string[] = [...new Set([
  ...SOURCES.filter((s) => s.harness !== 'otel').map((s) => s.harness),
  ...HOOK_ADAPTERS.map((a) => a.platform),
  ...STREAM_ADAPTERS.map((a) => a.platform),
  ...SESSION_STORES.map((s) => s.harness),
])];
