import type { AgentHookCall } from '../hook-command';
import { forwarderHead } from './js-forwarder';

/**
 * The plugin `beacon install opencode` writes: a thin forwarder with no logic of its own
 * (js-forwarder.ts). Each plugin hook's arguments, and the session bus events Beacon reads, go to
 * `forward`; opencode awaits a plugin with no timeout at all, `forward` bounds it; a deny reply is
 * thrown as the Error opencode shows the model; nothing, or anything else, means go on.
 */
export function renderOpencodePlugin(call: Omit<AgentHookCall, 'event'>): string {
  const head = forwarderHead('opencode', call, ['session.created', 'session.idle', 'chat.message', 'tool.execute.before', 'tool.execute.after']);
  return `${head}const judged = async (name, payload) => {
  const out = (await forward(name, payload)).trim();
  let verdict;
  try { verdict = out ? JSON.parse(out) : undefined; } catch { verdict = undefined; }
  if (verdict && verdict.decision === 'deny') throw new Error(String(verdict.reason));
};
export const BeaconHooks = async (ctx) => ({
  event: async ({ event }) => { if (event.type === 'session.created' || event.type === 'session.idle') await forward(event.type, { directory: ctx.directory, event }); },
  'chat.message': async (input, output) => { await forward('chat.message', { directory: ctx.directory, input, output }); },
  'tool.execute.before': async (input, output) => judged('tool.execute.before', { directory: ctx.directory, input, output }),
  'tool.execute.after': async (input, output) => { await forward('tool.execute.after', { directory: ctx.directory, input, output }); },
});
`;
}
