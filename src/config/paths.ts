import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `~/.beacon/endpoint`: the base of everything Beacon keeps for the user. */
export function beaconBaseDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.HOME || homedir(), '.beacon', 'endpoint');
}

export function defaultEventLogPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(beaconBaseDir(env), 'events.db');
}

export function defaultConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(beaconBaseDir(env), 'config.json');
}

/** The event log the user asked for: `--log`, else BEACON_ENDPOINT_LOG, else the default. */
export function resolveEventLogPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return flag || env.BEACON_ENDPOINT_LOG || defaultEventLogPath(env);
}

/** The installed package's root (where package.json is), from src/ under tests or dist/src/ installed. */
export function packageRoot(): string {
  let dir = __dirname;
  for (let i = 0; i < 6 && !existsSync(join(dir, 'package.json')); i++) dir = join(dir, '..');
  return dir;
}

/** This install's version, from its package.json. */
export function beaconVersion(): string {
  try {
    return String((JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

/** The commands of this install: the `beacon` CLI and the hook adapter bundle goose runs. */
export function installedEntryPoints(): { beacon: string; hooksBundle: string } {
  const root = packageRoot();
  return { beacon: join(root, 'dist', 'src', 'bin', 'beacon.js'), hooksBundle: join(root, 'dist', 'beacon-hooks.js') };
}

/** The launcher `beacon install goose` writes for goose's hook commands. */
export function hooksLauncherPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(beaconBaseDir(env), 'bin', 'beacon-hooks');
}
