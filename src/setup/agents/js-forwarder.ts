import { agentHookCommand, type AgentHookCall } from '../hook-command';
import { HOOK_TIMEOUT_S } from './hook-spec';

/**
 * The head of every JavaScript forwarder Beacon installs into an agent that loads plugins or
 * extensions (opencode, Pi): the file's ownership line, the `sh -c` line per event every
 * command-hook agent runs (hook-command.ts: the guarded launcher, its fast path, exit 0), and
 * `forward(name, payload)`, which hands the payload to it on stdin and resolves with its reply.
 * `forward` never rejects and never waits longer than the hook timeout: both agents await a
 * plugin's handler with no timeout of their own, and a handler that throws stops the tool.
 */
export function forwarderHead(agent: string, call: Omit<AgentHookCall, 'event'>, events: readonly string[]): string {
  const commands = Object.fromEntries(events.map((event) => [event, agentHookCommand({ ...call, event })]));
  return `// Written by \`beacon install ${agent}\`; \`beacon uninstall ${agent}\` removes it. Edits are refused by both.
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
`;
}
