import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hookCommandLine, parseHookCommand } from '../../src/setup/goose-hooks-file';
import { BEACON_BIN, tempDir } from './paths';

/** goose's hook commands as `beacon install goose` wrote them, pointed at one log, and goose's environment. */
export interface InstalledHooks {
  env: NodeJS.ProcessEnv;
  /** the command goose runs (`sh -c`) for each goose event name */
  commands: Record<string, string>;
}

/**
 * `beacon install goose` in a fresh home whose config names `port`, the launcher pinned to
 * `pinnedNode` (one that does not exist: only the fast path can record), the commands' `--log`
 * pointed at `log`.
 */
export function installGooseHooks(port: number, log: string, pinnedNode = process.execPath): InstalledHooks {
  const home = tempDir('launcher-home-');
  mkdirSync(join(home, '.beacon', 'endpoint'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, '.beacon', 'endpoint', 'config.json'), JSON.stringify({ collector: { port, log } }));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', GOOSE_PATH_ROOT: '', BEACON_ENDPOINT_LOG: '', BEACON_POLICY_PROVIDER: '' };
  const r = spawnSync(process.execPath, [BEACON_BIN, 'install', 'goose'], { env, cwd: home, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const launcher = join(home, '.beacon', 'endpoint', 'bin', 'beacon-hooks');
  writeFileSync(launcher, readFileSync(launcher, 'utf8').replace(/^node=.*$/m, `node='${pinnedNode}'`));
  const hooks = JSON.parse(readFileSync(join(home, '.agents', 'plugins', 'beacon-endpoint', 'hooks', 'hooks.json'), 'utf8')).hooks as Record<string, { hooks: { command: string }[] }[]>;
  const commands: Record<string, string> = {};
  for (const [event, rules] of Object.entries(hooks)) {
    // re-rendered, not edited: the command names the log's files too (what its fast path trusts)
    const c = parseHookCommand(rules[0]!.hooks[0]!.command);
    assert.ok(c?.checked, rules[0]!.hooks[0]!.command);
    commands[event] = hookCommandLine(c.launcher, log, c.config, c.sub);
  }
  return { env, commands };
}

/** goose running one hook: `sh -c` with the payload on stdin, in `cwd`, with `env` added. */
export function runGooseHook(inst: InstalledHooks, event: string, payload: string | object, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const t0 = Date.now();
  const r = spawnSync('sh', ['-c', inst.commands[event]!], { input: typeof payload === 'string' ? payload : JSON.stringify(payload), cwd: options.cwd, env: { ...inst.env, ...options.env }, encoding: 'utf8', timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - t0 };
}
