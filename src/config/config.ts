import { readChecked } from '../model/file-checks';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BeaconError, isBeaconError } from '../model/errors';
import { closest } from '../model/suggest';
import { CONFIG_KEYS, CONFIG_KEY_NAMES, definitionOf, type CollectorConfig, type ConfigKey } from './config-keys';
import { parseForwardDestinations, type ForwardDestination } from '../forward/registry';
import { defaultConfigPath } from './paths';
import { isLoopback } from './hosts';

export type { CollectorConfig } from './config-keys';
export { envName } from './config-keys';

type Partial_ = Partial<CollectorConfig>;

/** Sections of the config file that belong to other parts of Beacon: not collector keys, not typos. */
const OTHER_SECTIONS = ['collector', 'hooks', 'forward', 'forwarders', 'dashboard', 'pricing', 'redact'];

/** Where config warnings go: stderr, once each, before anything else is printed. */
export type Warn = (message: string) => void;
const warnToStderr: Warn = (m) => void process.stderr.write(`beacon: warning: ${m}\n`);

const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** Reads the JSON config file; a missing default file is fine, a missing named file or bad JSON is an error. */
export function readConfigFile(path: string | undefined, env: NodeJS.ProcessEnv, warn: Warn = warnToStderr): Partial_ {
  const file = path ?? defaultConfigPath(env);
  let text: string;
  try {
    // Checked like ~/.ssh/config: a file another user may write could forward every event to them.
    text = readChecked(file, MAX_CONFIG_BYTES, { followSymlink: true }).toString('utf8');
  } catch (e) {
    if (isBeaconError(e)) throw e;
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
  const known = CONFIG_KEY_NAMES;
  for (const key of Object.keys(top)) {
    if (OTHER_SECTIONS.includes(key) || (section === undefined && definitionOf(key))) continue;
    const guess = closest(key, [...known, ...OTHER_SECTIONS]);
    warn(`${where}: unknown key "${key}" ignored${guess ? ` (did you mean "${guess}"?)` : ''}`);
  }
  const forward = (section as Record<string, unknown> | undefined)?.forward ?? top.forward;
  if (section === undefined) return { ...pickTyped(top, where), ...(forward === undefined ? {} : { forward: forward as ForwardDestination[] }) };
  const collector = renamedKeys(section as Record<string, unknown>, where, warn);
  for (const key of Object.keys(collector)) {
    if (definitionOf(key) || key === 'forward') continue;
    const guess = closest(key, known);
    warn(`${where}: unknown key "collector.${key}" ignored${guess ? ` (did you mean "${guess}"?)` : ''}`);
  }
  return { ...pickTyped(collector, where), ...(forward === undefined ? {} : { forward: forward as ForwardDestination[] }) };
}

/**
 * Keys renamed since users may have set them: the old name is still read (file and environment),
 * with a warning naming the new one. `maxSpansPerExport` always capped log records and data points too.
 */
const RENAMED: Record<string, ConfigKey> = { maxSpansPerExport: 'maxItemsPerExport' };
const RENAMED_ENV: Record<string, ConfigKey> = { BEACON_MAX_SPANS_PER_EXPORT: 'maxItemsPerExport' };

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

function pickTyped(src: Record<string, unknown>, where: string): Partial_ {
  const out: Record<string, unknown> = {};
  for (const key of CONFIG_KEY_NAMES) {
    const v = src[key];
    if (v === undefined) continue;
    const { type } = CONFIG_KEYS[key];
    if (typeof v !== type) throw new BeaconError('bad_data', `${where}: "${key}" must be a ${type}, got ${JSON.stringify(v)}`);
    checkRule(key, v, `${where}: "${key}"`);
    out[key] = v;
  }
  return out as Partial_;
}

/** The definition's range and allowed values (the type is checked by the reader, which knows how it was written). */
function checkRule(key: ConfigKey, v: unknown, what: string): void {
  const rule = definitionOf(key);
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

/** Every key from its environment variable, type- and range-checked like the file. */
export function readEnv(env: NodeJS.ProcessEnv): Partial_ {
  const out: Record<string, unknown> = {};
  const oldNames = Object.fromEntries(Object.entries(RENAMED_ENV).map(([old, now]) => [now, old]));
  for (const key of CONFIG_KEY_NAMES) {
    const { type } = CONFIG_KEYS[key];
    // A renamed key's old variable (BEACON_MAX_SPANS_PER_EXPORT) is still read when the new one is unset.
    const old = oldNames[key];
    const name = env[CONFIG_KEYS[key].env] === undefined && old !== undefined && env[old] !== undefined ? old : CONFIG_KEYS[key].env;
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

export { parseIntStrict } from './config-keys';

/** The config every command means: the file (`--config`, else the default), the environment, then the command line's flags. */
export function collectorConfig(file: string | undefined, env: NodeJS.ProcessEnv, flags: Partial<CollectorConfig> = {}): Readonly<CollectorConfig> {
  return resolveCollectorConfig({ file: readConfigFile(file, env), env: readEnv(env), flags }, env);
}

export function resolveCollectorConfig(layers: { file?: Partial_; env?: Partial_; flags?: Partial_ }, env: NodeJS.ProcessEnv): Readonly<CollectorConfig> {
  const merged: CollectorConfig = {
    ...defaults(),
    ...stripUndefined(layers.file),
    ...stripUndefined(layers.env),
    ...stripUndefined(layers.flags),
  };
  // `~/…` in the config file (and the log's default), as users write paths.
  const home = env.HOME || homedir();
  merged.log = expandHome(merged.log, home);
  if (merged.exportPath) merged.exportPath = expandHome(merged.exportPath, home);
  // The file's raw list, checked here (the flags and environment have no forward settings).
  merged.forward = parseForwardDestinations(layers.file?.forward, (p) => expandHome(p, home));
  // Flags are checked here (a flag's mistake is the command line's: exit 2); file and env were checked as read.
  for (const [key, v] of Object.entries(stripUndefined(layers.flags)) as [ConfigKey, unknown][]) {
    try {
      checkRule(key, v, `--${CONFIG_KEYS[key].flag?.name ?? key}`);
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

/** Every key's default; a key without one is absent (off). `forward`: none. */
function defaults(): CollectorConfig {
  const out: Record<string, unknown> = { forward: [] };
  for (const key of CONFIG_KEY_NAMES) if (CONFIG_KEYS[key].default !== undefined) out[key] = CONFIG_KEYS[key].default;
  return out as unknown as CollectorConfig;
}

function stripUndefined(o: Partial_ | undefined): Partial_ {
  if (!o) return {};
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial_;
}

function expandHome(p: string, home: string): string {
  return p === '~' ? home : p.startsWith('~/') ? join(home, p.slice(2)) : p;
}

export { isLoopback }; // the loopback rules live in hosts.ts; re-exported for the config's readers
