import { spawn, spawnSync } from 'node:child_process';
import { HOOKS_BIN } from './paths';

export interface HookRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The hook command line as `beacon install goose` writes it: shell-quoted, run by `sh -c` as goose does. */
export function hookCommand(log: string, sub: string, config = '/nonexistent/config.json'): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `${q(process.execPath)} ${q(HOOKS_BIN)} --platform goose --log ${q(log)} --config ${q(config)} ${sub}`;
}

export function runHookSync(log: string, sub: string, payload: unknown, env: NodeJS.ProcessEnv = {}): HookRun {
  const r = spawnSync('sh', ['-c', hookCommand(log, sub)], {
    input: typeof payload === 'string' ? payload : JSON.stringify(payload),
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function runHookAsync(log: string, sub: string, payload: unknown, env: NodeJS.ProcessEnv = {}): Promise<HookRun> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', hookCommand(log, sub)], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(JSON.stringify(payload));
  });
}

/**
 * An agent's hook command line as the adapter is designed to be installed: the shell-quoted Node.js
 * and launcher, `--platform AGENT`, the log, and the agent's own event name; run by `sh -c` with the
 * payload on stdin, as every command-hook agent runs its hooks.
 */
export function agentHookCommand(platform: string, log: string, event: string): string {
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return `${q(process.execPath)} ${q(HOOKS_BIN)} --platform ${q(platform)} --log ${q(log)} --config /nonexistent/config.json ${q(event)}`;
}

export function runAgentHookSync(platform: string, log: string, event: string, payload: unknown, env: NodeJS.ProcessEnv = {}): HookRun {
  const r = spawnSync('sh', ['-c', agentHookCommand(platform, log, event)], {
    input: typeof payload === 'string' ? payload : JSON.stringify(payload),
    env: { ...process.env, BEACON_POLICY_PROVIDER: '', ...env },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

let invocations = 0;

/** A key as the installed launcher gives each invocation (BEACON_HOOK_KEY: src/setup/install.ts `hook_key`). */
export function newHookKey(): string {
  return `${process.pid}-${++invocations}-test`;
}

/**
 * One hook invocation as the installed launcher makes it: with a key of its own, which it always
 * sets. Pass `BEACON_HOOK_KEY` to record one invocation twice (its fast path, then its fallback).
 */
export function runHookInvocation(log: string, sub: string, payload: unknown, env: NodeJS.ProcessEnv = {}): HookRun {
  return runHookSync(log, sub, payload, { BEACON_HOOK_KEY: newHookKey(), ...env });
}
