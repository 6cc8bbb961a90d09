import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { findOnPath } from '../model/executables';
import type { AgentContext, AgentSpec } from './agents/spec';
import type { Check } from './doctor';

/**
 * The agent's installed version beside the one the agents lab tested (issue 33). Read from the
 * package.json of the npm package the binary on PATH resolves into: a few file reads, no process
 * start. `<bin> --version` of the lab's CLIs took 74 ms (claude) to 8 s (gemini) each on the 2-core
 * lab machine (codex 348 ms, qwen 332 ms, opencode 3.3 s, copilot 4.8 s, cline 7.3 s): far more
 * than the rest of doctor.
 */
export function installedVersion(spec: AgentSpec, ctx: AgentContext): { version: string; bin: string } | { bin: string } | undefined {
  for (const name of spec.binaries) {
    const bin = findOnPath(name, ctx.env.PATH);
    if (!bin) continue;
    let dir: string;
    try {
      dir = dirname(realpathSync(bin));
    } catch {
      return { bin };
    }
    // Up from the resolved file to its package's root: never past the node_modules it sits in.
    for (let i = 0; i < 6 && basename(dir) !== 'node_modules' && dirname(dir) !== dir; i++, dir = dirname(dir)) {
      const version = packageVersion(join(dir, 'package.json'));
      if (version) return { version, bin };
    }
    return { bin };
  }
  return undefined;
}

function packageVersion(file: string): string | undefined {
  try {
    const v = (JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' && v !== '' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** -1, 0, 1: dotted numeric parts compared in order (a pre-release tail is ignored). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split(/[-+]/)[0]!.split('.').map((p) => Number.parseInt(p, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** The `<agent>-version` check: undefined when the lab does not test the agent or its binary is not on PATH. */
export function versionCheck(spec: AgentSpec, ctx: AgentContext): Check | undefined {
  const tested = spec.testedVersion;
  if (!tested) return undefined;
  const found = installedVersion(spec, ctx);
  if (!found) return undefined;
  const id = `${spec.id}-version`;
  const pin = `npm install -g ${tested.package}@${tested.version}`;
  if (!('version' in found)) {
    return { id, status: 'ok', message: `${found.bin} is not an npm install, so doctor did not read its version (run it with --version); the lab tested ${tested.version}` };
  }
  const cmp = compareVersions(found.version, tested.version);
  if (cmp === 0) return { id, status: 'ok', message: `${found.version}, the version Beacon's agents lab tested` };
  if (cmp > 0) {
    return {
      id, status: 'warn',
      message: `${found.version} is newer than ${tested.version}, the version Beacon's agents lab tested: its records may have changed shape`,
      fix: `if an event is missing, beacon doctor ${spec.id} --send-test shows which half still arrives; or pin the tested version: ${pin}`,
    };
  }
  return { id, status: 'warn', message: `${found.version} is older than ${tested.version}, the version Beacon's agents lab tested`, fix: `update it: ${pin}` };
}
