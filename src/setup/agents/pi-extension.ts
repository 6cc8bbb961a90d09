import { agentHookCommand, type AgentHookCall } from '../hook-command';
import { HOOK_TIMEOUT_S } from './hook-spec';

/** The Pi events Beacon's extension forwards (sources/pi/hook-pi.ts reads them). */
export const PI_EVENTS = ['session_start', 'input', 'tool_call', 'tool_result', 'message_end', 'session_shutdown'] as const;

/**
 * The extension `beacon install pi` writes: a thin forwarder with no logic of its own. Each event,
 * with `ctx.cwd` and the session id, goes on stdin to the same `sh -c` line every command-hook
 * agent runs (hook-command.ts: the guarded launcher, its fast path, exit 0). Its wait is bounded
 * here, because Pi awaits an extension's handler with no timeout; and it never throws, because a
 * `tool_call` handler that throws blocks the tool. A deny reply becomes `{block: true, reason}`;
 * nothing, or anything else, means go on. Only assistant messages are forwarded of `message_end`
 * (the user's and the tool results' say nothing the other events do not).
 */
export function renderPiExtension(call: Omit<AgentHookCall, 'event'>): string {
  const commands = Object.fromEntries(PI_EVENTS.map((event) => [event, agentHookCommand({ ...call, event })]));
  return `// Written by \`beacon install pi\`; \`beacon uninstall pi\` removes it. Edits are refused by both.
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
  const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(''); }, ${HOOK_TIMEOUT_S * 1000});
  child.stdout.on('data', (d) => { if (out.length < 65536) out += d; });
  child.on('close', () => { clearTimeout(timer); resolve(out); });
  child.on('error', () => { clearTimeout(timer); resolve(''); });
  child.stdin.on('error', () => {});
  try { child.stdin.end(JSON.stringify(payload)); } catch { child.stdin.destroy(); }
});
const payload = (event, ctx) => {
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
