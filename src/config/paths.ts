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
