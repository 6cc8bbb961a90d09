import type { StreamAdapter } from '../stream-adapter';
import { agentStreamRecord } from '../stream-records';
import { ClaudeShapeStreamParser } from '../stream-shape-claude';
import { CLAUDE_CODE_USAGE } from './index';
import { claudeToolUse, classifyClaudeTool } from './tools';

/** Claude writes a failed Bash call's exit code only into the result text: `Exit code 2\n…`. */
const EXIT_CODE = /^Exit code (\d+)\b/;

/**
 * `claude -p --output-format stream-json --verbose`: the Claude Agent SDK's messages. The run's
 * usage is the `result` line's (Anthropic's values: input excludes both cache buckets; the cost is
 * Claude's own); the assistant lines carry the message_start usage (output_tokens 1) and are not counted.
 */
export const claudeCodeStream: StreamAdapter = {
  platform: 'claude-code',
  mode: { program: 'claude', flags: [{ name: '-p', aliases: ['--print'] }, { name: '--output-format', value: 'stream-json' }, { name: '--verbose' }] },
  example: 'claude -p --output-format stream-json --verbose "fix the tests" | beacon stream claude-code --tee',
  createParser: (o) =>
    new ClaudeShapeStreamParser({
      semantics: CLAUDE_CODE_USAGE,
      toolUse: claudeToolUse,
      exitCodeOf: (text) => {
        const m = EXIT_CODE.exec(text);
        return m ? Number(m[1]) : undefined;
      },
    }, o),
  record: (ev, ctx) => agentStreamRecord(ev, ctx, { harness: 'claude-code', classify: classifyClaudeTool }),
};
