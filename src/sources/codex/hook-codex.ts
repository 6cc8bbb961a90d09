import { classifyToolUse, type ClassifyOptions, type ToolOutcome } from '../../taxonomy/classify';
import type { FileChange, ToolUse } from '../../taxonomy/tool-use';
import type { HookAdapter } from '../hook-adapter';
import { CLAUDE_PHASES, claudeDeny, claudeShapeAdapter, exitCodeIn, str } from '../hook-shape-claude';
import { codePointLength } from '../hook-facts';
import { codexToolUse } from './tools';

/**
 * What an `apply_patch` of one file changes, from the patch's own lines: an added file's `+` lines
 * are its content; an update's hunks give the replaced text (context and `-` lines) and its
 * replacement (context and `+` lines). A patch of several files is left without a change (no diff).
 */
function patchChange(patch: string): FileChange | undefined {
  if ((patch.match(/^\*\*\* (?:Add|Update|Delete) File: /gm) ?? []).length !== 1) return undefined;
  const body = patch.split('\n').filter((l) => !/^\*\*\* |^@@/.test(l));
  if (/^\*\*\* Add File: /m.test(patch)) return { content: body.filter((l) => l.startsWith('+')).map((l) => l.slice(1)).join('\n') };
  if (!/^\*\*\* Update File: /m.test(patch)) return undefined;
  const before = body.filter((l) => l.startsWith(' ') || l.startsWith('-')).map((l) => l.slice(1));
  const after = body.filter((l) => l.startsWith(' ') || l.startsWith('+')).map((l) => l.slice(1));
  return { before: before.join('\n'), after: after.join('\n') };
}

function classifyCodexHookTool(name: string, input: unknown, options: ClassifyOptions = {}): ToolOutcome {
  const use: ToolUse = codexToolUse(name, input);
  const patch = name === 'apply_patch' && typeof (input as { input?: unknown })?.input === 'string' ? ((input as { input: string }).input) : undefined;
  const change = use.kind === 'write' && patch !== undefined ? patchChange(patch) : undefined;
  return classifyToolUse(name, use.kind === 'write' && change ? { ...use, change } : use, options);
}

/**
 * Codex's shell tool as its hooks present it: Claude's `Bash {command}` (the model called
 * `exec_command {cmd}`), and `apply_patch` with the patch text in `command`. Mapped back to Codex's
 * own tool table, so the hook's records classify as its OTLP export's do.
 */
function codexTool(name: string, input: unknown): { name: string; input: unknown } {
  const command = typeof input === 'object' && input !== null ? (input as { command?: unknown }).command : undefined;
  if (name === 'Bash') return { name: 'exec_command', input: { cmd: command } };
  if (name === 'apply_patch') return { name, input: { input: command } };
  return { name, input };
}

/**
 * Codex's hooks (0.171.0 observed; they run only with `[features] hooks = true` and trusted hooks).
 * The Claude shape; `tool_use_id` is the model's `call_id`, as in its OTLP `codex.tool_result`.
 * There is no failure event and no exit code for a shell command (its output only);
 * `apply_patch`'s response starts `Exit code: N`. Codex parses replies strictly: any field it does
 * not know fails the hook, so the neutral answer is nothing at all and a deny is exactly Claude's.
 */
/** Claude's events without PostToolUseFailure: Codex reports a failed call as a PostToolUse. */
const { PostToolUseFailure: _noFailureEvent, ...CODEX_PHASES } = CLAUDE_PHASES;

export const codexHooks: HookAdapter = claudeShapeAdapter(
  {
    // UserPromptSubmit's `turn_id` is on no OTLP log record: the prompt's length tells instead
    agent: { harness: 'codex', classifyTool: classifyCodexHookTool, promptLength: codePointLength },
    phases: CODEX_PHASES,
    callId: (o) => str(o, 'tool_use_id'),
    tool: codexTool,
    outcome: (o, tool) => (tool.name === 'apply_patch' ? { exitCode: exitCodeIn(str(o, 'tool_response')?.split('\n', 1)[0], /^Exit code: (-?\d+)$/) } : {}),
  },
  ['PreToolUse'],
  claudeDeny,
);
