import { isAbsolute, resolve as resolvePath } from 'node:path';
import { findOnPath, isProgram } from '../model/executables';

/** The optional policy provider (schema: beacon-policy-provider-schema.v1.json). Off by default. */
export interface PolicyRequest {
  version: '1';
  phase: 'pre-tool';
  /** the agent whose call it is (`beacon-hooks --platform`, a harness name) */
  platform: string;
  event: unknown;
}

export type PolicyVerdict =
  | { decision: 'allow'; failure?: string }
  | { decision: 'deny'; reason: string; ruleId?: string; severity?: string; mode?: string };

export const POLICY_TIMEOUT_MS = 2000;
const MAX_OUTPUT = 64 * 1024;

/**
 * The provider named by BEACON_POLICY_PROVIDER, as an absolute path to an executable file; otherwise
 * the seam is inert. A relative name is resolved against `cwd` (the directory the agent ran the hook
 * in) and a bare name searched on `PATH` (the agent's): the launcher does the same before it hands the
 * path to the collector, whose directory and PATH are not the agent's (issue 22 item 12).
 */
export function policyProvider(env: NodeJS.ProcessEnv, cwd = process.cwd()): string | undefined {
  const p = env.BEACON_POLICY_PROVIDER?.trim();
  if (!p) return undefined;
  if (!p.includes('/')) return findOnPath(p, env.PATH);
  const path = isAbsolute(p) ? p : resolvePath(cwd, p);
  return isProgram(path) ? path : undefined;
}

/**
 * Asks the provider. Fail-open: a timeout, crash, non-zero exit, unparseable output or any decision
 * other than "deny" allows the call (with `failure` saying why, for the hook's log). The verdict is
 * the provider's first complete answer once it has exited: a background child it left holding
 * stdout does not turn its deny into a timeout (issue 22 item 13).
 */
export function consultPolicy(provider: string, request: PolicyRequest, timeoutMs = POLICY_TIMEOUT_MS): Promise<PolicyVerdict> {
  return new Promise((resolve) => {
    let settled = false;
    let child: import('node:child_process').ChildProcess | undefined;
    const done = (v: PolicyVerdict) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Whatever still holds the pipe is not waited for (nor keeps a hook process alive).
      child?.stdout?.destroy();
      child?.unref();
      resolve(v);
    };
    const timer = setTimeout(() => {
      child?.kill('SIGKILL');
      done({ decision: 'allow', failure: `policy provider timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    try {
      // Loaded here, not at the top: most hooks run with no provider and should not pay for the module.
      const { spawn } = require('node:child_process') as typeof import('node:child_process');
      child = spawn(provider, [], { stdio: ['pipe', 'pipe', 'ignore'] });
    } catch (e) {
      done({ decision: 'allow', failure: `cannot start policy provider: ${(e as Error).message}` });
      return;
    }
    let out = '';
    let answer: PolicyVerdict | undefined;
    let exitCode: number | string | undefined;
    const decide = () => {
      if (exitCode === undefined) return;
      if (exitCode !== 0) done({ decision: 'allow', failure: `policy provider exited with ${exitCode}` });
      else if (answer) done(answer);
    };
    child.stdout!.on('data', (d: Buffer) => {
      if (out.length < MAX_OUTPUT) out += d.toString('utf8');
      answer ??= completeAnswer(out);
      decide();
    });
    child.on('error', (e) => done({ decision: 'allow', failure: `policy provider failed: ${e.message}` }));
    child.on('exit', (code, signal) => {
      exitCode = signal ?? code ?? 'nothing';
      decide();
    });
    // stdout's end: all the provider wrote is read, answer or not
    child.on('close', (code, signal) => {
      exitCode ??= signal ?? code ?? 'nothing';
      if (exitCode !== 0) return decide();
      done(answer ?? parseVerdict(out));
    });
    child.stdin!.on('error', () => {
      /* a provider that exits without reading its stdin is judged by its exit and output */
    });
    child.stdin!.end(JSON.stringify(request));
  });
}

/** The verdict in `out` if it already holds one whole JSON object (all of it, or its first line). */
function completeAnswer(out: string): PolicyVerdict | undefined {
  const nl = out.indexOf('\n');
  for (const text of nl >= 0 ? [out, out.slice(0, nl)] : [out]) {
    try {
      const v: unknown = JSON.parse(text);
      if (typeof v === 'object' && v !== null) return parseVerdict(text);
    } catch {
      /* not whole yet */
    }
  }
  return undefined;
}

export function parseVerdict(out: string): PolicyVerdict {
  let v: unknown;
  try {
    v = JSON.parse(out);
  } catch {
    return { decision: 'allow', failure: 'policy provider output is not JSON' };
  }
  if (typeof v !== 'object' || v === null) return { decision: 'allow', failure: 'policy provider output is not a JSON object' };
  const o = v as Record<string, unknown>;
  if (o.decision !== 'deny') return { decision: 'allow' };
  const s = (k: string) => (typeof o[k] === 'string' && o[k] !== '' ? (o[k] as string) : undefined);
  return { decision: 'deny', reason: s('reason') ?? 'denied by policy', ruleId: s('rule_id'), severity: s('severity'), mode: s('mode') };
}
