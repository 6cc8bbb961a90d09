import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { findOnPath } from '../model/executables';
import { homeOf, type AgentContext, type AgentSpec, type EnvLine } from './agents/spec';
import { shellQuote } from '../model/shell-quote';

/**
 * What `beacon doctor` asks of every agent it looks for: is it on this machine, and which shell file
 * holds its environment lines. Apart from agent-install.ts, which loads the install machinery (goose's
 * installer, the hook token) that a doctor run never uses (issue 25: doctor <= 2x a bare Node start).
 */

/** Where to put the lines an agent reads from its environment only, in the user's shell. */
export function shellRc(env: NodeJS.ProcessEnv): { file: string; line: (e: EnvLine) => string } {
  const shell = basename(env.SHELL ?? '');
  const home = homeOf(env);
  // A value with a space (the otlpToken's `Authorization=Bearer …`) is quoted; plain ones stay as they were.
  const v = (e: EnvLine) => (/^[\w@%+=:,./-]*$/.test(e.value) ? e.value : shellQuote(e.value));
  if (shell === 'fish') return { file: join(home, '.config', 'fish', 'config.fish'), line: (e) => `set -gx ${e.name} ${v(e)}` };
  return { file: join(home, shell === 'zsh' ? '.zshrc' : shell === 'bash' ? '.bashrc' : '.profile'), line: (e) => `export ${e.name}=${v(e)}` };
}

/** Why the agent counts as present on this machine, or undefined. */
export function detectAgent(spec: AgentSpec, ctx: AgentContext): string | undefined {
  for (const bin of spec.binaries) {
    const found = findOnPath(bin, ctx.env.PATH);
    if (found) return `${found} on PATH`;
  }
  const dir = spec.configDirs(ctx).find((d) => existsSync(d));
  return dir ? `${dir} exists` : spec.presentBy?.(ctx);
}

