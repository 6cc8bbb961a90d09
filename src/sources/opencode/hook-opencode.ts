import type { HookAdapter, HookDenial, HookEventContext, HookReading } from '../hook-adapter';
import { hookFactEvents, payloadObject, type HookFacts, type HookPhase } from '../hook-facts';
import { str, type Payload } from '../hook-shape-claude';
import { classifyOpencodeTool } from './tools';

/**
 * opencode has no command hooks: a plugin Beacon installs forwards each plugin hook it is given as
 * `{directory, input, output}` (the plugin context's directory, and opencode's own two arguments),
 * and bus events as `{directory, event}`, under the hook's or event's name. The plugin is a thin
 * forwarder: what the payload means is read here.
 */
const PHASES: Readonly<Record<string, HookPhase>> = {
  'session.created': 'session-start',
  'chat.message': 'prompt',
  'tool.execute.before': 'pre-tool',
  'tool.execute.after': 'post-tool',
  'session.idle': 'stop',
};

const AGENT = { harness: 'opencode', classifyTool: classifyOpencodeTool };

const obj = (v: unknown): Payload => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Payload) : {});

function opencodeFacts(event: string, o: Payload): HookFacts {
  const phase = PHASES[event]!;
  const input = obj(o.input);
  const output = obj(o.output);
  const props = obj(obj(o.event).properties);
  const info = obj(props.info);
  const facts: HookFacts = { event, phase, sessionId: str(input, 'sessionID') ?? str(props, 'sessionID') ?? str(info, 'id'), cwd: str(o, 'directory') ?? str(info, 'directory') };
  if (phase === 'prompt') {
    const parts = Array.isArray(output.parts) ? output.parts.map(obj) : [];
    const texts = parts.filter((p) => p.type === 'text' && typeof p.text === 'string' && p.synthetic !== true).map((p) => p.text as string);
    facts.prompt = texts.join('\n');
  }
  if (phase === 'pre-tool' || phase === 'post-tool') {
    const callId = str(input, 'callID');
    // before: the arguments are the mutable `output.args`; after: `input.args`
    facts.tool = { name: str(input, 'tool') ?? '', input: phase === 'pre-tool' ? output.args : input.args, ...(callId ? { callId } : {}) };
    if (phase === 'post-tool') {
      const exit = obj(output.metadata).exit;
      if (typeof exit === 'number' && Number.isSafeInteger(exit)) facts.tool.exitCode = exit;
    }
  }
  return facts;
}

/**
 * opencode 1.18.33 (observed through a plugin): `callID` is the model's call id, and the shell's
 * numeric exit code is in `tool.execute.after`'s `output.metadata.exit`. A plugin denies by throwing:
 * the deny reply `{"decision":"deny","reason":…}` is what the forwarder throws as its Error's
 * message; nothing at all means go on. opencode awaits a plugin without any timeout: the forwarder
 * bounds its own wait and goes on without an answer.
 */
export const opencodeHooks: HookAdapter = {
  platform: AGENT.harness,
  events: Object.keys(PHASES),
  policyEvents: new Set(['tool.execute.before']),
  read(event: string, payload: string, ctx: HookEventContext): HookReading {
    return hookFactEvents(AGENT, opencodeFacts(event, payloadObject(payload)), ctx);
  },
  reply: (event: string, denial?: HookDenial) => (denial && event === 'tool.execute.before' ? JSON.stringify({ decision: 'deny', reason: denial.reason }) : undefined),
};
