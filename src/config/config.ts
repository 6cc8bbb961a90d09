import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BeaconError } from '../model/errors';
import { defaultConfigPath, defaultEventLogPath } from './paths';

/** The collector's settings. One frozen object: defaults < config file < BEACON_* env < flags. */
export interface CollectorConfig {
  host: string;
  port: number;
  /** the SQLite event log */
  log: string;
  /** largest request body, after decompression (OTLP recommends 64 MiB) */
  maxBodyBytes: number;
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
  /** Host header names accepted besides loopback (comma-separated), e.g. a name in /etc/hosts for this machine */
  allowedHosts: string;
  /** when set, the dashboard asks for this token (shared machines) */
  dashboardToken?: string;
}

export const DEFAULTS: Omit<CollectorConfig, 'log'> = {
  host: '127.0.0.1',
  port: 4318,
  maxBodyBytes: 64 * 1024 * 1024,
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
  allowedHosts: '',
};

type Partial_ = Partial<CollectorConfig>;

const KEYS: Record<keyof CollectorConfig, 'string' | 'number' | 'boolean'> = {
  host: 'string',
  port: 'number',
  log: 'string',
  maxBodyBytes: 'number',
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

/** Reads the JSON config file; a missing default file is fine, a missing named file or bad JSON is an error. */
export function readConfigFile(path: string | undefined, env: NodeJS.ProcessEnv): Partial_ {
  const file = path ?? defaultConfigPath(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (path === undefined && (e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new BeaconError('usage', `cannot read config file ${file}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new BeaconError('usage', `config file ${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new BeaconError('usage', `config file ${file} must hold a JSON object`);
  }
  // The file may carry settings of other commands (hooks, export): keep only the collector's.
  const collector = (parsed as Record<string, unknown>).collector ?? parsed;
  return pickTyped(collector as Record<string, unknown>, `config file ${file}`);
}

function pickTyped(src: Record<string, unknown>, where: string): Partial_ {
  const out: Record<string, unknown> = {};
  for (const [key, type] of Object.entries(KEYS)) {
    const v = src[key];
    if (v === undefined) continue;
    if (typeof v !== type) throw new BeaconError('usage', `${where}: "${key}" must be a ${type}`);
    out[key] = v;
  }
  return out as Partial_;
}

/** BEACON_COLLECTOR_HOST, BEACON_COLLECTOR_PORT, BEACON_ENDPOINT_LOG, BEACON_MAX_BODY_BYTES, BEACON_LOG_LEVEL, BEACON_EXPORT_PATH, BEACON_ALLOWED_HOSTS, BEACON_DASHBOARD_TOKEN. */
export function readEnv(env: NodeJS.ProcessEnv): Partial_ {
  const out: Partial_ = {};
  if (env.BEACON_COLLECTOR_HOST) out.host = env.BEACON_COLLECTOR_HOST;
  if (env.BEACON_COLLECTOR_PORT) out.port = parseIntStrict(env.BEACON_COLLECTOR_PORT, 'BEACON_COLLECTOR_PORT');
  if (env.BEACON_ENDPOINT_LOG) out.log = env.BEACON_ENDPOINT_LOG;
  if (env.BEACON_MAX_BODY_BYTES) out.maxBodyBytes = parseIntStrict(env.BEACON_MAX_BODY_BYTES, 'BEACON_MAX_BODY_BYTES');
  if (env.BEACON_LOG_LEVEL) out.logLevel = env.BEACON_LOG_LEVEL;
  if (env.BEACON_EXPORT_PATH) out.exportPath = env.BEACON_EXPORT_PATH;
  if (env.BEACON_ALLOWED_HOSTS) out.allowedHosts = env.BEACON_ALLOWED_HOSTS;
  if (env.BEACON_DASHBOARD_TOKEN) out.dashboardToken = env.BEACON_DASHBOARD_TOKEN;
  return out;
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
  if (!Number.isInteger(merged.port) || merged.port < 0 || merged.port > 65535) {
    throw new BeaconError('usage', `port must be 0..65535, got ${merged.port}`);
  }
  if (!(merged.maxBodyBytes > 0)) throw new BeaconError('usage', 'maxBodyBytes must be positive');
  for (const k of ['exportRotateBytes', 'exportArchives', 'retentionMaxAgeDays', 'retentionMaxBytes', 'retentionIntervalMs'] as const) {
    if (!(merged[k] >= 0)) throw new BeaconError('usage', `${k} must be zero or positive`);
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

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
