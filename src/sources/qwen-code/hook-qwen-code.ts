import { classifyGeminiStyleTool } from '../gemini-tools';
import type { HookAdapter } from '../hook-adapter';
import { CLAUDE_PHASES, claudeDeny, claudeShapeAdapter, exitCodeIn, str, type Payload } from '../hook-shape-claude';
import { utf16Length } from '../hook-facts';

/** The shell's `Exit Code: N` line, in the result text (0.15) or the failure's `error` (0.24). */
function outcome(o: Payload, tool: { name: string }): { exitCode?: number } {
  if (tool.name !== 'run_shell_command') return {};
  const response = typeof o.tool_response === 'object' && o.tool_response !== null ? (o.tool_response as Payload) : {};
  const exitCode = exitCodeIn(response.llmContent, /^Exit Code: (-?\d+)$/) ?? exitCodeIn(str(o, 'error'), /^Exit Code: (-?\d+)$/);
  return exitCode !== undefined ? { exitCode } : {};
}

/**
 * Qwen Code's hooks (0.15.10 and 0.24.4 observed): Claude's event names, Gemini's tools. From 0.24
 * `tool_call_id` is the model's call id; `tool_use_id` is Qwen's own (`toolu_<ms>_<rand>`), which
 * still pairs a call's pre and post records on 0.15. UserPromptSubmit fires before every model call,
 * with an empty prompt on the continuations: those record nothing. 0.24 reports a failed command
 * as PostToolUseFailure, 0.15 as PostToolUse with `Exit Code: 2`. The deny Qwen documents and
 * honours is Claude's `hookSpecificOutput`.
 */
export const qwenCodeHooks: HookAdapter = claudeShapeAdapter(
  {
    agent: { harness: 'qwen-code', classifyTool: classifyGeminiStyleTool, promptLength: utf16Length },
    // 0.24's UserPromptSubmit `prompt_id` is its OTLP `user_prompt`'s (`<session>########<n>`)
    promptIdField: 'prompt_id',
    phases: CLAUDE_PHASES,
    failureEvents: new Set(['PostToolUseFailure']),
    callId: (o) => str(o, 'tool_call_id') ?? str(o, 'tool_use_id'),
    outcome,
  },
  ['PreToolUse'],
  claudeDeny,
);
