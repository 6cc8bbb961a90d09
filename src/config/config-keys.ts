import type { ForwardDestination } from '../forward/registry';
import { BeaconError } from '../model/errors';

/** The collector's settings. One frozen object: defaults < config file < BEACON_* env < flags. */
export interface CollectorConfig {
  host: string;
  port: number;
  /** OTLP/gRPC's port on the same host (0: off) */
  grpcPort: number;
  /** the SQLite event log */
  log: string;
  /** largest request body, after decompression (20 MiB, the OTel Collector's default; OTLP recommends 64 MiB) */
  maxBodyBytes: number;
  /** most items in one export: spans, log records or data points */
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
  /** when set, OTLP exports must carry `Authorization: Bearer <token>` (shared machines) */
  otlpToken?: string;
  /** take OTLP exports from other local users' sockets too (Linux refuses them by default: receiver/sender-check.ts) */
  otlpAllowOtherUsers: boolean;
  /** follow these agents' session stores (`all`, or agent names, comma-separated) as `beacon import --follow` does; off when unset */
  importFollow?: string;
}

/** Every key but `forward`, a list read from the file only (each destination type under src/forward/destinations checks its entries). */
export type ConfigKey = Exclude<keyof CollectorConfig, 'forward'>;

type TypeName<T> = T extends number ? 'number' : T extends boolean ? 'boolean' : 'string';

/**
 * Everything Beacon knows of one key, in one place: the file's and the environment's reader check
 * its type and range, `resolveCollectorConfig` starts from its default, a command that offers its
 * flag renders the help from it (the default included, so it cannot drift), and
 * `test/unit/config.test.ts` holds the README's table to it.
 */
export interface KeyDefinition<T = string | number | boolean> {
  type: TypeName<T>;
  /** the value when no layer sets it; absent: off. `~/` is the user's home, as in the file */
  default?: T;
  min?: number;
  max?: number;
  oneOf?: readonly string[];
  /** the environment variable that sets it */
  env: string;
  /** the command-line flag that sets it (without `--`), its value's placeholder in help (numbers: N), and its help given the shown default */
  flag?: { name: string; arg?: string; help: (shownDefault: string) => string };
  /** sizes are shown in MiB/GiB in help */
  unit?: 'bytes';
  /** its README row's meaning (markdown) */
  doc: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const MiB = 1024 * 1024;

/** One definition per key, in the README table's order. */
export const CONFIG_KEYS: { readonly [K in ConfigKey]-?: KeyDefinition<NonNullable<CollectorConfig[K]>> } = {
  host: {
    type: 'string', default: '127.0.0.1', env: 'BEACON_COLLECTOR_HOST',
    flag: { name: 'host', arg: 'HOST', help: (d) => `the address to listen on (default ${d}; loopback only unless --allow-remote)` },
    doc: 'the address the collector listens on (loopback only unless `allowRemote`)',
  },
  port: {
    type: 'number', default: 4318, min: 0, max: 65535, env: 'BEACON_COLLECTOR_PORT',
    flag: { name: 'port', help: (d) => `the port (default ${d}, OTLP/HTTP; 0 picks a free one)` },
    doc: 'its port, 0–65535 (0: any free port)',
  },
  grpcPort: {
    type: 'number', default: 4317, min: 0, max: 65535, env: 'BEACON_GRPC_PORT',
    flag: { name: 'grpc-port', help: (d) => `the OTLP/gRPC port on the same host (default ${d}; 0 turns OTLP/gRPC off)` },
    doc: 'the OTLP/gRPC port on the same host, 0–65535 (0: off); a port in use is logged and OTLP/HTTP still runs',
  },
  log: {
    type: 'string', default: '~/.beacon/endpoint/events.db', env: 'BEACON_ENDPOINT_LOG',
    flag: { name: 'log', arg: 'PATH', help: (d) => `the event log (default ${d}, or $BEACON_ENDPOINT_LOG)` },
    doc: "the event log (every command's `--log`)",
  },
  maxBodyBytes: {
    type: 'number', default: 20 * MiB, min: 1, unit: 'bytes', env: 'BEACON_MAX_BODY_BYTES',
    flag: { name: 'max-body-bytes', help: (d) => `the largest request body after decompression (default ${d})` },
    doc: 'the largest request body, after decompression, ≥ 1 (see [Limits](docs/otlp.md#limits))',
  },
  maxItemsPerExport: {
    type: 'number', default: 10_000, min: 1, env: 'BEACON_MAX_ITEMS_PER_EXPORT',
    doc: 'the most spans, log records or data points in one export; more → 413, ≥ 1 (formerly `maxSpansPerExport` / `BEACON_MAX_SPANS_PER_EXPORT`, still read, with a warning)',
  },
  maxBytesInFlight: {
    type: 'number', default: 128 * MiB, min: 1, unit: 'bytes', env: 'BEACON_MAX_BYTES_IN_FLIGHT',
    doc: 'memory all exports in flight may hold (bodies, decompressed, decode estimate); more → 429, ≥ 1',
  },
  maxPendingExports: {
    type: 'number', default: 512, min: 1, env: 'BEACON_MAX_PENDING_EXPORTS',
    doc: 'exports waiting for the writer before new ones get 429 + `Retry-After`, ≥ 1',
  },
  busyTimeoutMs: {
    type: 'number', default: 5000, min: 0, env: 'BEACON_BUSY_TIMEOUT_MS',
    doc: "how long a write waits for another writer's lock",
  },
  allowRemote: {
    type: 'boolean', default: false, env: 'BEACON_ALLOW_REMOTE',
    flag: { name: 'allow-remote', help: () => 'allow a non-loopback --host (telemetry can then reach this machine from the network)' },
    doc: 'permit a non-loopback `host` (`true`/`false`, `1`/`0`)',
  },
  logLevel: {
    type: 'string', default: 'info', oneOf: LOG_LEVELS, env: 'BEACON_LOG_LEVEL',
    doc: 'fatal, error, warn, info, debug, trace or silent',
  },
  exportPath: {
    type: 'string', env: 'BEACON_EXPORT_PATH',
    doc: 'keep a `runtime.jsonl` export here',
  },
  exportRotateBytes: {
    type: 'number', default: 10 * MiB, min: 0, unit: 'bytes', env: 'BEACON_EXPORT_ROTATE_BYTES',
    doc: 'rotate the export at this size',
  },
  exportArchives: {
    type: 'number', default: 5, min: 0, env: 'BEACON_EXPORT_ARCHIVES',
    doc: 'rotated exports kept',
  },
  // The log never grows without bound unless the user says so: 90 days, 2 GiB.
  retentionMaxAgeDays: {
    type: 'number', default: 90, min: 0, env: 'BEACON_RETENTION_MAX_AGE_DAYS',
    flag: { name: 'max-age-days', help: (d) => `remove events older than N days (default ${d}; 0: no age limit)` },
    doc: 'events older than this go (0: no age limit)',
  },
  retentionMaxBytes: {
    type: 'number', default: 2048 * MiB, min: 0, unit: 'bytes', env: 'BEACON_RETENTION_MAX_BYTES',
    flag: { name: 'max-bytes', help: (d) => `then the oldest while the data exceeds N bytes (default ${d}; 0: no size limit)` },
    doc: 'then the oldest while the data exceeds this (0: no size limit)',
  },
  retentionIntervalMs: {
    type: 'number', default: 10 * 60 * 1000, min: 1, env: 'BEACON_RETENTION_INTERVAL_MS',
    doc: 'how often the collector applies retention (the first pass comes after at most a minute)',
  },
  allowedHosts: {
    type: 'string', default: '', env: 'BEACON_ALLOWED_HOSTS',
    doc: '`Host` names accepted besides loopback, comma-separated (see [Dashboard](#dashboard))',
  },
  dashboardToken: {
    type: 'string', env: 'BEACON_DASHBOARD_TOKEN',
    doc: 'when set, the dashboard asks for this token (shared machines)',
  },
  otlpToken: {
    type: 'string', env: 'BEACON_OTLP_TOKEN',
    doc: 'when set, OTLP exports must carry `Authorization: Bearer <token>` (401 otherwise); `beacon install <agent>` writes the header where the agent reads it (shared machines)',
  },
  otlpAllowOtherUsers: {
    type: 'boolean', default: false, env: 'BEACON_OTLP_ALLOW_OTHER_USERS',
    doc: "take OTLP exports from other local users too; by default (Linux) an export from another user's socket gets 403 / `PERMISSION_DENIED` (see [On a shared machine](docs/shared-machine.md))",
  },
  importFollow: {
    type: 'string', env: 'BEACON_IMPORT_FOLLOW',
    doc: "follow the agents' own session stores as they write them, as `beacon import --follow` does: `all`, or agents comma-separated (`claude-code,codex`); unset: the stores of the installed agents that send no OTLP (Cline)",
  },
};

export const CONFIG_KEY_NAMES = Object.keys(CONFIG_KEYS) as ConfigKey[];

/** A key's definition, by a name read from a file, the environment or a layer (not yet known to be a key). */
export function definitionOf(key: string): KeyDefinition | undefined {
  return Object.hasOwn(CONFIG_KEYS, key) ? (CONFIG_KEYS[key as ConfigKey] as KeyDefinition) : undefined;
}

/** The environment variable of a config key: BEACON_MAX_BODY_BYTES for maxBodyBytes. */
export function envName(key: ConfigKey): string {
  return CONFIG_KEYS[key].env;
}

/** A default as help shows it: sizes in MiB or GiB, `(off)` when there is none. */
export function shownDefault(key: ConfigKey): string {
  const d = CONFIG_KEYS[key] as KeyDefinition;
  if (d.default === undefined) return '(off)';
  if (d.unit === 'bytes' && typeof d.default === 'number' && d.default % MiB === 0) {
    return d.default % (1024 * MiB) === 0 ? `${d.default / (1024 * MiB)} GiB` : `${d.default / MiB} MiB`;
  }
  return String(d.default);
}

/** The help of a key's flag, its default shown. */
export function flagHelp(key: ConfigKey): string {
  const d = CONFIG_KEYS[key] as KeyDefinition;
  if (!d.flag) throw new Error(`config key ${key} has no flag`);
  return d.flag.help(shownDefault(key));
}

/** A flag's or variable's whole number; here, not in config.ts, so a command's flags do not load the config reader and the forwarders. */
export function parseIntStrict(value: string, what: string): number {
  if (!/^\d+$/.test(value)) throw new BeaconError('usage', `${what} must be a whole number, got "${value}"`);
  return Number(value);
}
