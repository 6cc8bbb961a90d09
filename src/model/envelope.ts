import { userInfo } from 'node:os';
import { endpointInfo } from './endpoint';
import { SCHEMA_VERSION, type BeaconRecord, type CollectionMethod, type Fidelity } from './record';
import { formatTimestamp } from './time';

export interface Envelope {
  timeUnixNano: bigint;
  action: string;
  category: string;
  id: string;
  fidelity?: Fidelity;
  harness: { name: string; version?: string; collection_method: CollectionMethod };
  message?: string;
}

/** The part of a Beacon record every writer fills the same way: identity, time, machine, harness. */
export function newRecord(e: Envelope): BeaconRecord {
  return {
    timestamp: formatTimestamp(e.timeUnixNano),
    vendor: 'beacon',
    product: 'endpoint-agent',
    schema_version: SCHEMA_VERSION,
    event: { kind: 'agent_runtime', action: e.action, category: e.category, id: e.id, fidelity: e.fidelity ?? 'observed' },
    severity: 'info',
    endpoint: { ...endpointInfo() },
    harness: e.harness,
    ...(e.message !== undefined ? { message: e.message } : {}),
  };
}

let user: { name: string; uid?: string } | undefined;

/** The local user a hook or stream adapter runs as (the OTLP path takes goose's `user.name` instead). */
export function localUser(): { name: string; uid?: string } {
  if (!user) {
    try {
      const u = userInfo();
      user = { name: u.username, ...(u.uid >= 0 ? { uid: String(u.uid) } : {}) };
    } catch {
      user = { name: process.env.USER ?? process.env.LOGNAME ?? 'unknown' };
    }
  }
  return user;
}
