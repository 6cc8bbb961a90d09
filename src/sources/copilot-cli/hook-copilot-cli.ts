import type { HookAdapter, HookDenial, HookEventContext, HookReading } from '../hook-adapter';
import { hookFactEvents, payloadObject, type HookFacts, type HookPhase } from '../hook-facts';
import { CLAUDE_PHASES, exitCodeIn, str, type Payload } from '../hook-shape-claude';
import { classifyCopilotTool } from './tools';

/**
 * Copilot CLI speaks two dialects, chosen by the event names its hooks file uses: camelCase
 * (`preToolUse`: camelCase fields, `toolArgs`, `toolResult`, no event name in the payload) and
 * PascalCase (`PreToolUse`: Claude's snake_case fields, Claude's tool names over Copilot's own
 * arguments, `tool_result`). Both are read here; the event on the command line says which.
 */
const CAMEL: Readonly<Record<string, HookPhase>> = {
  sessionStart: 'session-start',
  userPromptSubmitted: 'prompt',
  preToolUse: 'pre-tool',
  postToolUse: 'post-tool',
  agentStop: 'stop',
  sessionEnd: 'session-end',
};
const PASCAL = CLAUDE_PHASES;
/** The PascalCase dialect's Claude names for Copilot's tools (the arguments stay Copilot's: `path`, `file_text`). */
const COPILOT_NAMES: Readonly<Record<string, string>> = { Bash: 'bash', Write: 'create', Edit: 'edit', Read: 'view' };

const AGENT = { harness: 'copilot-cli', classifyTool: classifyCopilotTool, pairsCalls: true };

/** `toolArgs` is an object in 1.0.102 (observed); the documented form is its JSON text. */
function argsOf(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

function copilotFacts(event: string, o: Payload): HookFacts {
  const camel = Object.hasOwn(CAMEL, event);
  const phase = camel ? CAMEL[event]! : PASCAL[event]!;
  const facts: HookFacts = { event, phase, sessionId: str(o, camel ? 'sessionId' : 'session_id'), cwd: str(o, 'cwd') };
  if (phase === 'prompt') facts.prompt = str(o, 'prompt');
  if (phase !== 'pre-tool' && phase !== 'post-tool') return facts;
  const reported = str(o, camel ? 'toolName' : 'tool_name') ?? '';
  const name = camel ? reported : (Object.hasOwn(COPILOT_NAMES, reported) ? COPILOT_NAMES[reported]! : reported);
  facts.tool = { name, input: argsOf(camel ? o.toolArgs : o.tool_input) };
  if (phase === 'post-tool') {
    const result = (camel ? o.toolResult : o.tool_result) as Payload | undefined;
    const r = typeof result === 'object' && result !== null ? result : {};
    // A failed shell command is `resultType: "success"` (observed): the exit code is only in the text.
    const exitCode = name === 'bash' ? exitCodeIn(str(r, camel ? 'textResultForLlm' : 'text_result_for_llm'), /^<shellId: \S+ completed with exit code (-?\d+)>$/) : undefined;
    const type = str(r, camel ? 'resultType' : 'result_type');
    facts.tool = { ...facts.tool, failed: event === 'PostToolUseFailure' || (type !== undefined && type !== 'success'), ...(exitCode !== undefined ? { exitCode } : {}) };
  }
  return facts;
}

/**
 * Copilot CLI's hooks (1.0.102 observed). No call id in either dialect: Beacon pairs a call's pre
 * and post records. Neutral is exit 0 and nothing: "allow" skips the user's approval (observed).
 * The deny that works in both dialects is the top-level `permissionDecision` (Claude's
 * `hookSpecificOutput` is ignored in the camelCase one). Copilot denies the call when a hook exits
 * 1 or is missing: the command installed must exit 0 whatever happens to the launcher.
 */
export const copilotCliHooks: HookAdapter = {
  platform: AGENT.harness,
  events: [...Object.keys(CAMEL), ...Object.keys(PASCAL)],
  policyEvents: new Set(['preToolUse', 'PreToolUse']),
  read(event: string, payload: string, ctx: HookEventContext): HookReading {
    return hookFactEvents(AGENT, copilotFacts(event, payloadObject(payload)), ctx);
  },
  reply: (event: string, denial?: HookDenial) => (denial && (event === 'preToolUse' || event === 'PreToolUse') ? JSON.stringify({ permissionDecision: 'deny', permissionDecisionReason: denial.reason }) : undefined),
};
