import type { NormalizedEvent } from '../../model/record';
import { modelCallEvent } from '../agent-events';
import type { HookAdapter, HookDenial, HookEventContext, HookReading } from '../hook-adapter';
import { hookFactEvents, payloadObject, type HookFacts, type HookPhase } from '../hook-facts';
import { str, type Payload } from '../hook-shape-claude';
import { resultText } from '../store-events';
import { piExitCode } from './tools';
import { PI_AGENT, piTokenUsage } from './usage';

/**
 * Pi has no command hooks: the extension Beacon installs (setup/agents/pi-extension.ts) forwards
 * `{cwd, sessionId, event}` under the event's name — `ctx.cwd`, `ctx.sessionManager.getSessionId()`
 * and Pi's own event object. The extension is a thin forwarder: what the event means is read here.
 */
const PHASES: Readonly<Record<string, HookPhase>> = {
  session_start: 'session-start',
  input: 'prompt',
  tool_call: 'pre-tool',
  tool_result: 'post-tool',
  session_shutdown: 'session-end',
};

/** An assistant message's end: one model call with its usage (docs/agents/pi-facts.md §4). */
const MODEL_CALL = 'message_end';

const obj = (v: unknown): Payload => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Payload) : {});

function piFacts(name: string, o: Payload): HookFacts {
  const phase = PHASES[name]!;
  const event = obj(o.event);
  const facts: HookFacts = { event: name, phase, sessionId: str(o, 'sessionId'), cwd: str(o, 'cwd') };
  if (phase === 'prompt') facts.prompt = str(event, 'text') ?? '';
  if (phase === 'pre-tool' || phase === 'post-tool') {
    const callId = str(event, 'toolCallId');
    facts.tool = { name: str(event, 'toolName') ?? '', input: event.input, ...(callId ? { callId } : {}) };
    if (phase === 'post-tool') {
      const exit = piExitCode(resultText(event.content));
      if (event.isError === true) facts.tool.failed = true;
      if (exit !== undefined) facts.tool.exitCode = exit;
    }
  }
  return facts;
}

/** The model call an assistant `message_end` reports, keyed by its response id as the stream and the store key it. */
function modelCall(o: Payload, ctx: HookEventContext): NormalizedEvent[] {
  const m = obj(obj(o.event).message);
  if (m.role !== 'assistant' || typeof m.usage !== 'object') return [];
  const sessionId = str(o, 'sessionId');
  const responseId = str(m, 'responseId');
  const stop = str(m, 'stopReason');
  const at = typeof m.timestamp === 'number' && Number.isSafeInteger(m.timestamp) ? BigInt(m.timestamp) * 1_000_000n : ctx.now;
  const ev = modelCallEvent(PI_AGENT, { time: at, resource: {}, ...(sessionId ? { sessionId } : {}), key: ctx.key ?? `${at}`, method: 'hook' }, {
    model: str(m, 'model'),
    provider: str(m, 'provider'),
    ...(responseId ? { responseId } : {}),
    ...(stop ? { finishReasons: [stop] } : {}),
    usage: piTokenUsage(m.usage),
    ...(stop === 'error' ? { error: 'error' } : {}),
  });
  return [ev];
}

/**
 * Pi 0.73.1 (observed through an extension): `toolCallId` is the model's call id; a failed bash call
 * has `isError` and its exit code only in the result text. An extension blocks a call by returning
 * `{block: true, reason}` from `tool_call`: the deny reply below is what the forwarder turns into that.
 */
export const piHooks: HookAdapter = {
  platform: PI_AGENT.harness,
  events: [...Object.keys(PHASES), MODEL_CALL],
  policyEvents: new Set(['tool_call']),
  read(event: string, payload: string, ctx: HookEventContext): HookReading {
    const o = payloadObject(payload);
    if (event === MODEL_CALL) return { events: modelCall(o, ctx) };
    return hookFactEvents(PI_AGENT, piFacts(event, o), ctx);
  },
  reply: (event: string, denial?: HookDenial) => (denial && event === 'tool_call' ? JSON.stringify({ decision: 'deny', reason: denial.reason }) : undefined),
};
