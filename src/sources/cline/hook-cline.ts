import type { HookAdapter, HookDenial, HookEventContext, HookReading } from '../hook-adapter';
import { hookFactEvents, payloadObject, type HookFacts, type HookPhase } from '../hook-facts';
import { str, type Payload } from '../hook-shape-claude';
import { classifyClineTool, clineOutcome } from './tools';
import { clinePromptText } from './prompt';

/** Cline's hook files by event name (the file's name is the event), and where each sits in a task. */
const PHASES: Readonly<Record<string, HookPhase>> = {
  TaskStart: 'session-start',
  UserPromptSubmit: 'prompt',
  PreToolUse: 'pre-tool',
  PostToolUse: 'post-tool',
  TaskComplete: 'stop',
};

const AGENT = { harness: 'cline', classifyTool: classifyClineTool };

const obj = (v: unknown): Payload => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Payload) : {});

/**
 * One payload (3.0.65, docs/agents/cline-facts.md): the session is `sessionContext.rootSessionId`
 * (the store's session id; `taskId` is the conversation inside it), the directory
 * `workspaceRoots[0]`; the tool call `tool_call` / `tool_result` `{id, name, input, output}` with the
 * model's call id. TaskStart names no prompt; UserPromptSubmit (`userPromptSubmit.prompt`) does.
 */
function clineFacts(event: string, o: Payload): HookFacts {
  const phase = PHASES[event];
  if (!phase) throw new Error(`not a Cline hook event Beacon installs: ${event.slice(0, 40)}`);
  const roots = Array.isArray(o.workspaceRoots) ? o.workspaceRoots : [];
  const facts: HookFacts = { event, phase, sessionId: str(obj(o.sessionContext), 'rootSessionId') ?? str(o, 'taskId'), cwd: typeof roots[0] === 'string' ? roots[0] : undefined };
  if (phase === 'prompt') {
    const prompt = str(obj(o.userPromptSubmit), 'prompt');
    if (prompt !== undefined) facts.prompt = clinePromptText(prompt);
  }
  if (phase === 'stop') facts.response = str(obj(o.turn), 'outputText');
  if (phase !== 'pre-tool' && phase !== 'post-tool') return facts;
  const call = obj(phase === 'pre-tool' ? o.tool_call : o.tool_result);
  const name = str(call, 'name');
  if (name === undefined) return facts;
  facts.tool = { name, input: call.input, ...(str(call, 'id') ? { callId: str(call, 'id') } : {}) };
  if (phase === 'post-tool') {
    const outcome = clineOutcome(call.output);
    const durationMs = typeof call.durationMs === 'number' ? call.durationMs : undefined;
    facts.tool = { ...facts.tool, failed: outcome.failed || typeof call.error === 'string', ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}), ...(durationMs !== undefined ? { durationMs } : {}) };
  }
  return facts;
}

/**
 * Cline's hooks. Neutral is nothing on stdout (Cline reads it as `{}`; the exit code is ignored).
 * A deny is `{cancel: true, errorMessage}` on PreToolUse, and Cline cancels the whole task with it,
 * not only the call: the only deny Cline has.
 */
export const clineHooks: HookAdapter = {
  platform: AGENT.harness,
  events: Object.keys(PHASES),
  policyEvents: new Set(['PreToolUse']),
  read(event: string, payload: string, ctx: HookEventContext): HookReading {
    return hookFactEvents(AGENT, clineFacts(event, payloadObject(payload)), ctx);
  },
  reply: (event: string, denial?: HookDenial) => (denial && event === 'PreToolUse' ? JSON.stringify({ cancel: true, errorMessage: denial.reason }) : undefined),
};
