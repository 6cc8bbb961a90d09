import type { HookAdapter } from '../hook-adapter';
import { CLAUDE_PHASES, claudeDeny, claudeShapeAdapter, exitCodeIn, str } from '../hook-shape-claude';
import { utf16Length } from '../hook-facts';
import { classifyClaudeTool } from './tools';

/**
 * Claude Code's hooks (2.1.197 and 2.1.332 observed): the payload shape the others copied.
 * `tool_use_id` is the model's call id, the same its OTLP `tool_result` carries, so the hook's
 * records and the export's are one call. A failed call is its own event, PostToolUseFailure, whose
 * `error` starts `Exit code 2` for a shell command. Neutral is exit 0 and nothing on stdout: an
 * "allow" would skip the user's own approval (observed in default mode).
 */
export const claudeCodeHooks: HookAdapter = claudeShapeAdapter(
  {
    agent: { harness: 'claude-code', classifyTool: classifyClaudeTool, promptLength: utf16Length },
    // `prompt_id` (UserPromptSubmit to SessionEnd: the same through the turn) is its OTLP records' `prompt.id` (user_prompt, assistant_response)
    promptIdField: 'prompt_id',
    phases: CLAUDE_PHASES,
    failureEvents: new Set(['PostToolUseFailure']),
    callId: (o) => str(o, 'tool_use_id'),
    outcome: (o, tool, failureEvent) => (failureEvent && tool.name === 'Bash' ? { exitCode: exitCodeIn(str(o, 'error')?.split('\n', 1)[0], /^Exit code (-?\d+)$/) } : {}),
  },
  ['PreToolUse'],
  claudeDeny,
);
