import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BeaconError } from '../model/errors';
import { closest } from '../model/suggest';
import { parseForwardDestinations, type ForwardDestination } from './forward';
import { defaultConfigPath, defaultEventLogPath } from './paths';
import { isLoopback } from './hosts';

/** The collector's settings. One frozen object: defaults < config file < BEACON_* env < flags. */
export interface CollectorConfig {
  host: string;
  port: number;
  /** the SQLite event log */
  log: string;
  /** largest request body, after decompression (20 MiB, the OTel Collector's default; OTLP recommends 64 MiB) */
  maxBodyBytes: number;
  /** most items in one export: spans, log records or data points (goose sends at most 512 spans) */
  maxItemsPerExport: number;
  /** memory all exports in flight may hold: bodies, decompressed bodies, decoded estimate */
  maxBytesInFlight: number;
  /** exports waiting for the writer before new ones get 503 + Retry-After */
  maxPendingExports: number;
  /** how long a write waits for another writer (a hook) to release the log */
  busyTimeoutMs: number;
  allowRemote: boolean;
  logLevel: string;
  /** maintain a runtime.jsonl export here (off when unset) */
  exportPath?: string;
  exportRotateBytes: number;
  exportArchives: number;
  /** retention: 0 turns a limit off */
  retentionMaxAgeDays: number;
  retentionMaxBytes: number;
  retentionIntervalMs: number;
  /** forward destinations (src/forward): the `forward` list, at the top of the file or under "collector"; none by default */
  forward: ForwardDestination[];
  /** Host header names accepted besides loopback (comma-separated), e.g. a name in /etc/hosts for this machine */
  allowedHosts: string;
  /** when set, the dashboard asks for this token (shared machines) */
  dashboardToken?: string;
}

export const DEFAULTS: Omit<CollectorConfig, 'log'> = {
  host: '127.0.0.1',
  port: 4318,
  maxBodyBytes: 20 * 1024 * 1024,
  maxItemsPerExport: 10_000,
  maxBytesInFlight: 128 * 1024 * 1024,
  maxPendingExports: 512,
  busyTimeoutMs: 5000,
  allowRemote: false,
  logLevel: 'info',
  exportRotateBytes: 10 * 1024 * 1024,
  exportArchives: 5,
  // The log never grows without bound unless the user says so: 90 days, 2 GiB.
  retentionMaxAgeDays: 90,
  retentionMaxBytes: 2 * 1024 * 1024 * 1024,
  retentionIntervalMs: 10 * 60 * 1000,
  forward: [],
  allowedHosts: '',
};

type Partial_ = Partial<CollectorConfig>;

/** Scalar keys (each with an environment variable); `forward` is a list, read from the file only. */
export const KEYS: Record<Exclude<keyof CollectorConfig, 'forward'>, 'string' | 'number' | 'boolean'> = {
  host: 'string',
  port: 'number',
  log: 'string',
  maxBodyBytes: 'number',
  maxItemsPerExport: 'number',
  maxBytesInFlight: 'number',
  maxPendingExports: 'number',
  busyTimeoutMs: 'number',
  allowRemote: 'boolean',
  logLevel: 'string',
  exportPath: 'string',
  exportRotateBytes: 'number',
  exportArchives: 'number',
  retentionMaxAgeDays: 'number',
  retentionMaxBytes: 'number',
  retentionIntervalMs: 'number',
  allowedHosts: 'string',
  dashboardToken: 'string',
};

/**
 * What a value may be, beyond its type (KEYS). A key without a rule here is only type-checked;
 * every key gets an environment variable: BEACON_ + its name in SNAKE_CASE unless ENV_NAMES says
 * otherwise (the names documented before the rule).
 */
export interface KeyRule {
  min?: number;
  max?: number;
  oneOf?: readonly string[];
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const RULES: Partial<Record<keyof CollectorConfig, KeyRule>> = {
  port: { min: 0, max: 65535 },
  maxBodyBytes: { min: 1 },
  maxItemsPerExport: { min: 1 },
  maxBytesInFlight: { min: 1 },
  maxPendingExports: { min: 1 },
  busyTimeoutMs: { min: 0 },
  logLevel: { oneOf: LOG_LEVELS },
  exportRotateBytes: { min: 0 },
  exportArchives: { min: 0 },
  retentionMaxAgeDays: { min: 0 },
  retentionMaxBytes: { min: 0 },
  retentionIntervalMs: { min: 1 },
};

const ENV_NAMES: Partial<Record<keyof CollectorConfig, string>> = {
  host: 'BEACON_COLLECTOR_HOST',
  port: 'BEACON_COLLECTOR_PORT',
  log: 'BEACON_ENDPOINT_LOG',
};

/** The environment variable of a config key: BEACON_MAX_BODY_BYTES for maxBodyBytes. */
export function envName(key: keyof CollectorConfig): string {
  return ENV_NAMES[key] ?? `BEACON_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/**
 * Keys renamed since users may have set them: the old name is still read (file and environment),
 * with a warning naming the new one. `maxSpansPerExport` always capped log records and data points too.
 */
const RENAMED: Record<string, Exclude<keyof CollectorConfig, 'forward'>> = { maxSpansPerExport: 'maxItemsPerExport' };

/** The old names of renamed keys, in `src`, moved to their new names (a new name set beside it wins). */
function renamedKeys(src: Record<string, unknown>, where: string, warn: Warn): Record<string, unknown> {
  const out = { ...src };
  for (const [old, now] of Object.entries(RENAMED)) {
    if (out[old] === undefined) continue;
    warn(`${where}: "${old}" is now "${now}" (it caps log records and data points too); the old name is still read`);
    out[now] ??= out[old];
    delete out[old];
  }
  return out;
}

/** Sections of the config file that belong to other parts of Beacon: not collector keys, not typos. */
const OTHER_SECTIONS = ['collector', 'hooks', 'forward', 'forwarders', 'dashboard', 'pricing', 'redact'];

/** Where config warnings go: stderr, once each, before anything else is printed. */
export type Warn = (message: string) => void;
const warnToStderr: Warn = (m) => void process.stderr.write(`beacon: warning: ${m}\n`);

/** Reads the JSON config file; a missing default file is fine, a missing named file or bad JSON is an error. */
export function readConfigFile(path: string | undefined, env: NodeJS.ProcessEnv, warn: Warn = warnToStderr): Partial_ {
  const file = path ?? defaultConfigPath(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (path === undefined && (e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new BeaconError('bad_data', `cannot read config file ${file}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new BeaconError('bad_data', `config file ${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new BeaconError('bad_data', `config file ${file} must hold a JSON object`);
  }
  const where = `config file ${file}`;
  const top = renamedKeys(parsed as Record<string, unknown>, where, warn);
  // Collector settings go at the top level or under "collector"; other sections belong to other parts.
  const section = top.collector;
  if (section !== undefined && (typeof section !== 'object' || section === null || Array.isArray(section))) {
    throw new BeaconError('bad_data', `config file ${file}: "collector" must be an object`);
  }
  const known = Object.keys(KEYS);
  for (const key of Object.keys(top)) {
    if (OTHER_SECTIONS.includes(key) || (section === undefined && key in KEYS)) continue;
    const guess = closest(key, [...known, ...OTHER_SECTIONS]);
    warn(`${where}: unknown key "${key}" ignored${guess ? ` (did you mean "${guess}"?)` : ''}`);
  }
  const forward = (section as Record<string, unknown> | undefined)?.forward ?? top.forward;
  if (section === undefined) return { ...pickTyped(top, where), ...(forward === undefined ? {} : { forward: forward as ForwardDestination[] }) };
  const collector = renamedKeys(section as Record<string, unknown>, where, warn);
  for (const key of Object.keys(collector)) {
    if (key in KEYS || key === 'forward') continue;
    const guess = closest(key, known);
    warn(`${where}: unknown key "collector.${key}" ignored${guess ? ` (did you mean "${guess}"?)` : ''}`);
  }
  return { ...pickTyped(collector, where), ...(forward === undefined ? {} : { forward: forward as ForwardDestination[] }) };
}

function pickTyped(src: Record<string, unknown>, where: string): Partial_ {
  const out: Record<string, unknown> = {};
  for (const [key, type] of Object.entries(KEYS)) {
    const v = src[key];
    if (v === undefined) continue;
    if (typeof v !== type) throw new BeaconError('bad_data', `${where}: "${key}" must be a ${type}, got ${JSON.stringify(v)}`);
    checkRule(key as keyof CollectorConfig, v, `${where}: "${key}"`);
    out[key] = v;
  }
  return out as Partial_;
}

function checkRule(key: keyof CollectorConfig, v: unknown, what: string): void {
  const rule = RULES[key];
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw new BeaconError('bad_data', `${what} must be a whole number, got ${v}`);
    if (rule?.min !== undefined && v < rule.min) throw new BeaconError('bad_data', `${what} must be at least ${rule.min}, got ${v}`);
    if (rule?.max !== undefined && v > rule.max) throw new BeaconError('bad_data', `${what} must be at most ${rule.max}, got ${v}`);
  }
  if (typeof v === 'string' && rule?.oneOf && !rule.oneOf.includes(v)) {
    const guess = closest(v, rule.oneOf);
    throw new BeaconError('bad_data', `${what} must be one of ${rule.oneOf.join(', ')}, got "${v}"${guess ? ` (did you mean "${guess}"?)` : ''}`);
  }
}

/** Every key from its environment variable (envName), type- and range-checked like the file. */
export function readEnv(env: NodeJS.ProcessEnv): Partial_ {
  const out: Record<string, unknown> = {};
  const oldNames = Object.fromEntries(Object.entries(RENAMED).map(([old, now]) => [now, envName(old as keyof CollectorConfig)]));
  for (const [key, type] of Object.entries(KEYS) as [keyof CollectorConfig, string][]) {
    // A renamed key's old variable (BEACON_MAX_SPANS_PER_EXPORT) is still read when the new one is unset.
    const name = env[envName(key)] === undefined && oldNames[key] !== undefined && env[oldNames[key]] !== undefined ? oldNames[key] : envName(key);
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    let v: unknown = raw;
    if (type === 'number') {
      if (!/^\d+$/.test(raw.trim())) throw new BeaconError('bad_data', `${name} must be a whole number, got "${raw}"`);
      v = Number(raw.trim());
    } else if (type === 'boolean') {
      const b = raw.trim().toLowerCase();
      if (!['1', 'true', 'yes', '0', 'false', 'no'].includes(b)) throw new BeaconError('bad_data', `${name} must be true or false, got "${raw}"`);
      v = ['1', 'true', 'yes'].includes(b);
    }
    checkRule(key, v, name);
    out[key] = v;
  }
  return out as Partial_;
}

export function parseIntStrict(value: string, what: string): number {
  if (!/^\d+$/.test(value)) throw new BeaconError('usage', `${what} must be a whole number, got "${value}"`);
  return Number(value);
}

export function resolveCollectorConfig(layers: { file?: Partial_; env?: Partial_; flags?: Partial_ }, env: NodeJS.ProcessEnv): Readonly<CollectorConfig> {
  const merged: CollectorConfig = {
    ...DEFAULTS,
    log: defaultEventLogPath(env),
    ...stripUndefined(layers.file),
    ...stripUndefined(layers.env),
    ...stripUndefined(layers.flags),
  };
  // `~/…` in the config file, as users write paths.
  const home = env.HOME || homedir();
  merged.log = expandHome(merged.log, home);
  if (merged.exportPath) merged.exportPath = expandHome(merged.exportPath, home);
  // The file's raw list, checked here (the flags and environment have no forward settings).
  merged.forward = parseForwardDestinations(layers.file?.forward, (p) => expandHome(p, home));
  // Flags are checked here (a flag's mistake is the command line's: exit 2); file and env were checked as read.
  for (const [key, v] of Object.entries(stripUndefined(layers.flags))) {
    try {
      checkRule(key as keyof CollectorConfig, v, `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
    } catch (e) {
      throw new BeaconError('usage', (e as Error).message);
    }
  }
  if (!isLoopback(merged.host) && !merged.allowRemote) {
    throw new BeaconError(
      'usage',
      `refusing to listen on ${merged.host}: Beacon listens on loopback only, so telemetry never leaves this machine. ` +
        'Pass --allow-remote to listen on another address anyway.',
    );
  }
  return Object.freeze(merged);
}

function stripUndefined(o: Partial_ | undefined): Partial_ {
  if (!o) return {};
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial_;
}

function expandHome(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : p;
}

export { isLoopback }; // the loopback rules live in hosts.ts; re-exported for the config's readers
