import { accessSync, constants } from 'node:fs';

/** The optional policy provider (schema: beacon-policy-provider-schema.v1.json). Off by default. */
export interface PolicyRequest {
  version: '1';
  phase: 'pre-tool';
  platform: 'goose';
  event: unknown;
}

export type PolicyVerdict =
  | { decision: 'allow'; failure?: string }
  | { decision: 'deny'; reason: string; ruleId?: string; severity?: string; mode?: string };

export const POLICY_TIMEOUT_MS = 2000;
const MAX_OUTPUT = 64 * 1024;

/** The provider named by BEACON_POLICY_PROVIDER, if it names an executable file; otherwise the seam is inert. */
export function policyProvider(env: NodeJS.ProcessEnv): string | undefined {
  const p = env.BEACON_POLICY_PROVIDER?.trim();
  if (!p) return undefined;
  try {
    accessSync(p, constants.X_OK);
    return p;
  } catch {
    return undefined;
  }
}

/**
 * Asks the provider. Fail-open: a timeout, crash, non-zero exit, unparseable output or any decision
 * other than "deny" allows the call (with `failure` saying why, for the hook's log).
 */
export function consultPolicy(provider: string, request: PolicyRequest, timeoutMs = POLICY_TIMEOUT_MS): Promise<PolicyVerdict> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (v: PolicyVerdict) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(v);
    };
    let child: import('node:child_process').ChildProcess;
    try {
      // Loaded here, not at the top: most hooks run with no provider and should not pay for the module.
      const { spawn } = require('node:child_process') as typeof import('node:child_process');
      child = spawn(provider, [], { stdio: ['pipe', 'pipe', 'ignore'] });
    } catch (e) {
      done({ decision: 'allow', failure: `cannot start policy provider: ${(e as Error).message}` });
      return;
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      done({ decision: 'allow', failure: `policy provider timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      if (out.length < MAX_OUTPUT) out += d.toString('utf8');
    });
    child.on('error', (e) => done({ decision: 'allow', failure: `policy provider failed: ${e.message}` }));
    child.on('close', (code, signal) => {
      if (code !== 0) return done({ decision: 'allow', failure: `policy provider exited with ${signal ?? code}` });
      done(parseVerdict(out));
    });
    child.stdin!.on('error', () => {
      /* a provider that exits without reading its stdin is judged by its exit and output */
    });
    child.stdin!.end(JSON.stringify(request));
  });
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
