import { hostname } from 'node:os';

/** The machine every event is observed on. Computed once per process. */
export interface EndpointInfo {
  hostname: string;
  os: string;
  agent_version: string;
}

let cached: EndpointInfo | undefined;

export const BEACON_VERSION = '0.1.0';

export function endpointInfo(): EndpointInfo {
  cached ??= {
    hostname: hostname(),
    os: process.platform === 'win32' ? 'windows' : process.platform,
    agent_version: BEACON_VERSION,
  };
  return cached;
}
