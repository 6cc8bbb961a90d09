/**
 * Runs the real Cline CLI (test/agents pins `cline` 3.0.65) headless against the mock model, the way
 * docs/agents/cline-facts.md records: `cline auth` points its openai-compatible provider at the mock
 * (a non-GPT model id, so it offers its `editor` tool), then `cline --json <prompt>` runs one task
 * in process (CLINE_SESSION_BACKEND_MODE=local: no hub daemon). Offline: a fresh HOME, the
 * environment built from scratch, Cline's own telemetry opted out in its global settings.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AGENTS_DIR } from './agent-cli';
import { MOCK_API_KEY } from './mock-model';

export const CLINE_VERSION = '3.0.65';
export const CLINE_MODEL = 'mock-model';

export function clineBinary(): { path: string; skip?: undefined } | { path?: undefined; skip: string } {
  const bin = join(AGENTS_DIR, 'node_modules', '.bin', 'cline');
  if (!existsSync(bin)) return { skip: `cline is not installed (${bin} missing): run \`npm ci --prefix test/agents\`` };
  const v = JSON.parse(readFileSync(join(AGENTS_DIR, 'node_modules', 'cline', 'package.json'), 'utf8')).version;
  if (v !== CLINE_VERSION) return { skip: `cline ${v} is installed, the lab pins ${CLINE_VERSION}` };
  return { path: bin };
}

export function clineEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: [dirname(process.execPath), process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].join(':'),
    HOME: home, USER: process.env.USER ?? 'root', SHELL: '/bin/bash', LANG: 'C.UTF-8', TERM: 'dumb', NO_COLOR: '1',
    TMPDIR: process.env.TMPDIR ?? '/tmp', NO_PROXY: '127.0.0.1,localhost',
    CLINE_SESSION_BACKEND_MODE: 'local',
    ...extra,
  };
}

export interface ClineRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function run(argv: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ClineRun> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const kill = () => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } };
    const timer = setTimeout(() => { timedOut = true; kill(); }, timeoutMs);
    child.once('close', (code) => { clearTimeout(timer); kill(); resolve({ code, stdout, stderr, timedOut }); });
    child.once('error', (e) => { clearTimeout(timer); resolve({ code: null, stdout, stderr: `${stderr}\nspawn failed: ${e.message}`, timedOut }); });
  });
}

/** `cline auth` to the mock, then one headless `cline --json` task in `workdir`; `command` wraps the argv (`beacon stream cline --`). */
export async function runCline(o: { bin: string; home: string; workdir: string; mockUrl: string; prompt: string; env?: Record<string, string>; timeoutMs?: number; command?: (argv: string[]) => string[] }): Promise<ClineRun> {
  mkdirSync(o.workdir, { recursive: true });
  const settings = join(o.home, '.cline', 'data', 'settings', 'global-settings.json');
  mkdirSync(dirname(settings), { recursive: true });
  if (!existsSync(settings)) writeFileSync(settings, JSON.stringify({ telemetryOptOut: true }));
  const env = clineEnv(o.home, o.env);
  const auth = await run([o.bin, 'auth', '-p', 'openai', '-k', MOCK_API_KEY, '-b', `${o.mockUrl}/v1`, '-m', CLINE_MODEL], o.workdir, env, 30_000);
  if (auth.code !== 0) return { ...auth, stderr: `cline auth failed: ${auth.stderr}` };
  const argv = [o.bin, '--json', o.prompt];
  return run(o.command ? o.command(argv) : argv, o.workdir, env, o.timeoutMs ?? 90_000);
}
