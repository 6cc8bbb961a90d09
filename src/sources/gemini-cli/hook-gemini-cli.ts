import { classifyGeminiStyleTool } from '../gemini-tools';
import type { HookAdapter, HookDenial } from '../hook-adapter';
import { claudeShapeAdapter, exitCodeIn, type Payload } from '../hook-shape-claude';
import { utf16Length } from '../hook-facts';

/** Gemini's shell result text ends with its own `Exit Code: N` line (`llmContent`); an `error` key is a failure too. */
function outcome(o: Payload, tool: { name: string }): { failed?: boolean; exitCode?: number } {
  const response = typeof o.tool_response === 'object' && o.tool_response !== null ? (o.tool_response as Payload) : {};
  const failed = response.error !== undefined && response.error !== null && response.error !== '';
  return { failed, ...(tool.name === 'run_shell_command' ? { exitCode: exitCodeIn(response.llmContent, /^Exit Code: (-?\d+)$/) } : {}) };
}

/**
 * Gemini CLI's hooks (0.61.0 observed): the Claude shape under Gemini's names (BeforeAgent has the
 * prompt, AfterAgent the answer as `prompt_response`). There is no call id at all, so Beacon pairs a
 * call's BeforeTool and AfterTool itself; a failed command is an AfterTool whose `llmContent` says
 * `Exit Code: 2`. Plain text on stdout is shown to the user as a "system message", so neutral is
 * nothing; a deny is `{"decision":"deny","reason":…}`. Gemini denies on any exit code ≥ 2 (a
 * missing launcher's 127 included): the command installed must exit 0 whatever happens.
 */
export const geminiCliHooks: HookAdapter = claudeShapeAdapter(
  {
    // BeforeAgent carries no prompt id: the prompt's length tells its OTLP `user_prompt` record
    agent: { harness: 'gemini-cli', classifyTool: classifyGeminiStyleTool, pairsCalls: true, promptLength: utf16Length },
    phases: {
      SessionStart: 'session-start',
      BeforeAgent: 'prompt',
      BeforeTool: 'pre-tool',
      AfterTool: 'post-tool',
      AfterAgent: 'stop',
      SessionEnd: 'session-end',
    },
    responseField: 'prompt_response',
    outcome,
  },
  ['BeforeTool'],
  (_event: string, d: HookDenial) => JSON.stringify({ decision: 'deny', reason: d.reason }),
);
