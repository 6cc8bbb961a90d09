import type { AgentHookCall } from '../hook-command';
import { agentHookCommand } from '../hook-command';

/**
 * The plugin `beacon install opencode` writes: a thin forwarder with no logic of its own. Each plugin
 * hook's arguments, and the session bus events Beacon reads, go on stdin to the same `sh -c` line
 * every command-hook agent runs (hook-command.ts: the guarded launcher, its fast path, exit 0). Its
 * wait is bounded here, because opencode awaits a plugin with no timeout at all; a deny reply is
 * thrown as the Error opencode shows the model; nothing, or anything else, means go on.
 */
export function renderOpencodePlugin(call: Omit<AgentHookCall, 'event'>): string {
  const commands = Object.fromEntries(['session.created', 'session.idle', 'chat.message', 'tool.execute.before', 'tool.execute.after'].map((event) => [event, agentHookCommand({ ...call, event })]));
  return `// Written by \`beacon install opencode\`; \`beacon uninstall opencode\` removes it. Edits are refused by both.
import { spawn } from 'node:child_process';
const COMMANDS = ${JSON.stringify(commands, null, 2)};
const forward = (name, payload) => new Promise((resolve) => {
  let out = '';
  let child;
  try {
    child = spawn('/bin/sh', ['-c', COMMANDS[name]], { stdio: ['pipe', 'pipe', 'ignore'] });
  } catch {
    resolve('');
    return;
  }
  const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(''); }, ${10_000});
  child.stdout.on('data', (d) => { if (out.length < 65536) out += d; });
  child.on('close', () => { clearTimeout(timer); resolve(out); });
  child.on('error', () => { clearTimeout(timer); resolve(''); });
  child.stdin.on('error', () => {});
  child.stdin.end(JSON.stringify(payload));
});
const judged = async (name, payload) => {
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
