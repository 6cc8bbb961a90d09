import type { AgentHookCall } from '../hook-command';
import { forwarderHead } from './js-forwarder';

/** The Pi events Beacon's extension forwards (sources/pi/hook-pi.ts reads them). */
export const PI_EVENTS = ['session_start', 'input', 'tool_call', 'tool_result', 'message_end', 'session_shutdown'] as const;

/**
 * The extension `beacon install pi` writes: a thin forwarder with no logic of its own
 * (js-forwarder.ts). Each event, with `ctx.cwd` and the session id, goes to `forward`; Pi awaits
 * an extension's handler with no timeout, `forward` bounds it; and the handler never throws,
 * because a `tool_call` handler that throws blocks the tool. A deny reply becomes `{block: true, reason}`;
 * nothing, or anything else, means go on. Only assistant messages are forwarded of `message_end`
 * (the user's and the tool results' say nothing the other events do not).
 */
export function renderPiExtension(call: Omit<AgentHookCall, 'event'>): string {
  return `${forwarderHead('pi', call, PI_EVENTS)}const payload = (event, ctx) => {
  let sessionId;
  try { sessionId = ctx.sessionManager.getSessionId(); } catch { sessionId = undefined; }
  return { cwd: ctx.cwd, sessionId, event };
};
export default function beacon(pi) {
  for (const name of Object.keys(COMMANDS)) {
    pi.on(name, async (event, ctx) => {
      try {
        if (name === 'message_end' && event.message?.role !== 'assistant') return undefined;
        const out = (await forward(name, payload(event, ctx))).trim();
        if (name !== 'tool_call' || !out) return undefined;
        const verdict = JSON.parse(out);
        return verdict && verdict.decision === 'deny' ? { block: true, reason: String(verdict.reason) } : undefined;
      } catch {
        return undefined;
      }
    });
  }
}
`;
}
