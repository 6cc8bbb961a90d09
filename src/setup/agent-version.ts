import { execFile } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { findOnPath } from '../model/executables';
import type { AgentContext, AgentSpec, TestedVersion } from './agents/spec';
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
  if (!tested?.package) return undefined;
  const found = installedVersion(spec, ctx);
  if (!found) return undefined;
  if (!('version' in found)) {
    return { id: `${spec.id}-version`, status: 'ok', message: `${found.bin} is not an npm install, so doctor did not read its version (run it with --version); the lab tested ${tested.version}` };
  }
  return versionVerdict(spec, found.version, tested);
}

export const VERSION_TIMEOUT_MS = 3000;

/**
 * The version check of an agent outside npm (goose, a Rust binary): what `<binary> --version`
 * prints, its first dotted number (goose prints its clap version line). Started with doctor's other
 * slow probes; undefined when the agent has no tested version or no binary on PATH.
 */
export async function commandVersionCheck(spec: AgentSpec, ctx: AgentContext, timeoutMs = VERSION_TIMEOUT_MS): Promise<Check | undefined> {
  const tested = spec.testedVersion;
  if (!tested || tested.package) return undefined;
  const bin = spec.binaries.map((name) => findOnPath(name, ctx.env.PATH)).find((b) => b !== undefined);
  if (!bin) return undefined;
  const version = await commandVersion(bin, ctx.env, timeoutMs);
  if (version) return versionVerdict(spec, version, tested);
  return { id: `${spec.id}-version`, status: 'ok', message: `${bin} --version printed no version number within ${timeoutMs / 1000} s: compare it yourself with ${tested.version}, ${testedBy(tested)}` };
}

/** `<bin> --version`'s first dotted number (only that is kept of what it printed); undefined on an error or past the timeout. */
export function commandVersion(bin: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string | undefined> {
  return new Promise((done) => {
    execFile(bin, ['--version'], { env, timeout: timeoutMs, maxBuffer: 64 * 1024, windowsHide: true }, (err, stdout) => {
      done(err ? undefined : /(?<![\d.])\d+(?:\.\d+)+/.exec(String(stdout))?.[0]);
    });
  });
}

const testedBy = (tested: TestedVersion) => tested.checkedAgainst ?? "the version Beacon's agents lab tested";

/**
 * The installed version beside the tested one. A tested version with fewer parts (goose's 1.51)
 * stands for every release under it: 1.51.3 is that version, 1.52.0 newer.
 */
function versionVerdict(spec: AgentSpec, version: string, tested: TestedVersion): Check {
  const id = `${spec.id}-version`;
  const by = testedBy(tested);
  const pin = tested.package ? `npm install -g ${tested.package}@${tested.version}` : undefined;
  const parts = tested.version.split('.').length;
  const cmp = compareVersions(version.split(/[-+]/)[0]!.split('.').slice(0, parts).join('.'), tested.version);
  if (cmp === 0) return { id, status: 'ok', message: `${version}${version === tested.version ? '' : ` (a ${tested.version} release)`}, ${by}` };
  if (cmp > 0) {
    return {
      id, status: 'warn',
      message: `${version} is newer than ${tested.version}, ${by}: its records may have changed shape`,
      fix: `if an event is missing, beacon doctor ${spec.id} --send-test shows which half still arrives${pin ? `; or pin the tested version: ${pin}` : ''}`,
    };
  }
  return { id, status: 'warn', message: `${version} is older than ${tested.version}, ${by}`, fix: `update it: ${pin ?? tested.update ?? `a ${tested.version} release`}` };
}
