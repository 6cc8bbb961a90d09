import { BeaconError } from '../model/errors';
import type { Sender } from './destination-loop';

/** Files for a TLS connection: a CA bundle to trust (else the system's), a client certificate and key. */
export interface TlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
}

/** What every destination has, whatever its type (parsed by the registry before the type's own keys). */
export interface DestinationBase {
  name: string;
  /** where a destination seen for the first time starts: the log's end (default) or its oldest event */
  from: 'start' | 'end';
  /** a batch is sent once it holds this many records, or `batchDelayMs` after its first one */
  maxBatchRecords: number;
  batchDelayMs: number;
  /** one attempt (connect, send, acknowledgement) */
  timeoutMs: number;
}

/** Credentials a destination resolved at start (e.g. OTLP header values): sent on the wire, never logged or shown. */
export type Secrets = Record<string, string>;

/**
 * One kind of forward destination, in one module under `destinations/`: its config keys and their
 * checks, its credentials, its sender. The registry (`registry.ts`) lists them; nothing else
 * switches on `type`.
 */
export interface DestinationType<D extends DestinationBase & { type: string }> {
  type: D['type'];
  /** its keys besides the common ones (name, type, from, maxBatchRecords, batchDelayMs, timeoutMs, tls) */
  keys: readonly string[];
  /** `maxBatchRecords`' default and upper bound, which depend on what one send costs */
  maxBatchRecords: { default: number; max: number };
  /** the type's own keys checked (`where` names the destination in messages; messages never quote values) */
  parse(raw: Record<string, unknown>, base: DestinationBase, where: string, expandPath: (p: string) => string): D;
  /**
   * The config fields that hold credentials, resolved from the collector's environment when
   * forwarding starts (a missing one fails the start); handed to `sender` apart from the config.
   */
  secrets?(d: D, env: NodeJS.ProcessEnv): Secrets;
  /** the sender the destination's loop calls, made in the forward worker */
  sender(d: D, secrets: Secrets): Sender;
}

export function tlsFiles(v: unknown, where: string, expandPath: (p: string) => string): TlsFiles | false {
  if (v === false) return false;
  if (v === undefined || v === true) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw configError(`${where}: "tls" must be an object {ca, cert, key} (or false for plain TCP)`);
  const out: TlsFiles = {};
  for (const [k, p] of Object.entries(v)) {
    if (k !== 'ca' && k !== 'cert' && k !== 'key') throw configError(`${where}: unknown key "tls.${k}" (ca, cert, key)`);
    if (typeof p !== 'string' || p === '') throw configError(`${where}: "tls.${k}" must be a file path`);
    out[k] = expandPath(p);
  }
  if ((out.cert === undefined) !== (out.key === undefined)) throw configError(`${where}: a client certificate needs both "tls.cert" and "tls.key"`);
  return out;
}

export function wholeNumber(v: unknown, dflt: number, min: number, max: number, what: string): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw configError(`${what} must be a whole number ${min}..${max}`);
  return v;
}

/** A config file's mistake, like the rest of the file's (exit 1). */
export const configError = (m: string) => new BeaconError('bad_data', m);
export function fail(m: string): never {
  throw configError(m);
}
