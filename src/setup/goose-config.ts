import { existsSync, readFileSync } from 'node:fs';
import { BeaconError } from '../model/errors';
import { backupInTree, readInTree, writeInTree } from '../model/tree-files';

/**
 * The YAML library, loaded when a config.yaml is there to read: it is ~10 ms of a `beacon doctor`
 * run, which starts its slow probes (the hook launcher, the collector) before it reads the file.
 */
const yaml = () => require('yaml') as typeof import('yaml');

/** goose's config.yaml as install reads it to edit: through the checked tree (model/tree-files.ts), never a symlink. */
const MAX_CONFIG_BYTES = 8 << 20;
const readToEdit = (path: string) => readInTree(path, MAX_CONFIG_BYTES)?.toString('utf8');

export const ENDPOINT_KEY = 'otel_exporter_otlp_endpoint';
export const TIMEOUT_KEY = 'otel_exporter_otlp_timeout';
export const DEFAULT_TIMEOUT_MS = 10000;

export interface GooseConfigView {
  path: string;
  exists: boolean;
  parseError?: string;
  endpoint?: string;
  timeout?: unknown;
  /** config.yaml `plugins:` map, keyed by plugin root path */
  plugins: Record<string, { enabled?: unknown }>;
}

export function readGooseConfig(path: string): GooseConfigView {
  if (!existsSync(path)) return { path, exists: false, plugins: {} };
  const doc = yaml().parseDocument(readFileSync(path, 'utf8'));
  if (doc.errors.length > 0) return { path, exists: true, parseError: doc.errors[0]!.message, plugins: {} };
  const js = (doc.toJS() ?? {}) as Record<string, unknown>;
  const plugins = typeof js.plugins === 'object' && js.plugins !== null ? (js.plugins as Record<string, { enabled?: unknown }>) : {};
  return {
    path,
    exists: true,
    endpoint: typeof js[ENDPOINT_KEY] === 'string' ? (js[ENDPOINT_KEY] as string) : undefined,
    timeout: js[TIMEOUT_KEY],
    plugins,
  };
}

/** The lines a user adds to config.yaml by hand (the default: goose's config stays the user's). */
export function otlpSnippet(endpoint: string): string {
  return `${ENDPOINT_KEY}: ${endpoint}\n${TIMEOUT_KEY}: ${DEFAULT_TIMEOUT_MS}\n`;
}

/**
 * `--configure-otlp`: sets the two keys, after copying the file to a timestamped backup. The edit is
 * surgical: an existing value is replaced where it stands (the YAML library locates it), a missing key
 * is appended; every other byte of the user's file — comments, order, spacing — stays as it was.
 * No change, no write, no backup.
 */
/** What `configureOtlp` set: each key's new value and the one it replaced (null: the key was absent). */
export type OtlpEdit = Record<string, { wrote: string; previous: string | null }>;

export function configureOtlp(path: string, endpoint: string, now = new Date()): { changed: boolean; backup?: string; created?: boolean; edit: OtlpEdit } {
  const fresh: OtlpEdit = { [ENDPOINT_KEY]: { wrote: endpoint, previous: null }, [TIMEOUT_KEY]: { wrote: String(DEFAULT_TIMEOUT_MS), previous: null } };
  const text = readToEdit(path);
  if (text === undefined) {
    writeInTree(path, otlpSnippet(endpoint));
    return { changed: true, created: true, edit: fresh };
  }
  const { isMap, isScalar, parseDocument } = yaml();
  const doc = parseDocument(text);
  const byHand = `add the keys by hand:\n${otlpSnippet(endpoint)}`;
  if (doc.errors.length > 0) throw new BeaconError('bad_data', `${path} is not valid YAML (${doc.errors[0]!.message}); fix it or ${byHand}`);
  if (doc.contents !== null && !isMap(doc.contents)) throw new BeaconError('bad_data', `${path} is not a YAML mapping; ${byHand}`);
  if (doc.get(ENDPOINT_KEY) === endpoint && doc.has(TIMEOUT_KEY)) return { changed: false, edit: {} };
  const edit: OtlpEdit = {};
  const prev = doc.get(ENDPOINT_KEY);
  if (prev !== endpoint) edit[ENDPOINT_KEY] = { wrote: endpoint, previous: prev === undefined ? null : String(prev) };
  if (!doc.has(TIMEOUT_KEY)) edit[TIMEOUT_KEY] = { wrote: String(DEFAULT_TIMEOUT_MS), previous: null };

  let out = text;
  const pair = isMap(doc.contents) ? doc.contents.items.find((p) => isScalar(p.key) && p.key.value === ENDPOINT_KEY) : undefined;
  if (pair) {
    const v = pair.value;
    if (!isScalar(v) || !v.range) throw new BeaconError('bad_data', `${path}: ${ENDPOINT_KEY} is not a plain value; ${byHand}`);
    out = out.slice(0, v.range[0]) + endpoint + out.slice(v.range[1]);
  }
  const append: string[] = [];
  if (!pair) append.push(`${ENDPOINT_KEY}: ${endpoint}`);
  if (!doc.has(TIMEOUT_KEY)) append.push(`${TIMEOUT_KEY}: ${DEFAULT_TIMEOUT_MS}`);
  if (append.length > 0) out = `${out}${out === '' || out.endsWith('\n') ? '' : '\n'}${append.join('\n')}\n`;

  const check = parseDocument(out);
  if (check.errors.length > 0 || check.get(ENDPOINT_KEY) !== endpoint) throw new BeaconError('internal', `editing ${path} did not give the expected result; ${byHand}`);
  const backup = backupInTree(path, text, now);
  writeInTree(path, out);
  return { changed: true, backup, edit };
}

/** Would `configureOtlp` succeed? Checked before anything is installed, so a bad file changes nothing. */
export function checkEditable(path: string): void {
  const text = readToEdit(path);
  if (text === undefined) return;
  const { isMap, parseDocument } = yaml();
  const doc = parseDocument(text);
  const byHand = `fix it, or install without --configure-otlp and add the keys by hand. Nothing was changed.`;
  if (doc.errors.length > 0) throw new BeaconError('bad_data', `${path} is not valid YAML (${doc.errors[0]!.message}); ${byHand}`);
  if (doc.contents !== null && !isMap(doc.contents)) throw new BeaconError('bad_data', `${path} is not a YAML mapping; ${byHand}`);
}

/**
 * Undoes an `OtlpEdit` key by key, only where the file still holds the value Beacon wrote: a key it
 * added is removed (its whole line), a value it replaced is put back. Anything changed since is
 * left alone and reported. Returns what it did, line by line.
 */
export function revertOtlp(path: string, edit: OtlpEdit): string[] {
  const found = readToEdit(path);
  if (found === undefined) return [];
  let text: string = found;
  const report: string[] = [];
  const { isMap, isScalar, parseDocument } = yaml();
  for (const [key, { wrote, previous }] of Object.entries(edit)) {
    const doc = parseDocument(text);
    if (doc.errors.length > 0 || !isMap(doc.contents)) return [...report, `${path} no longer parses as a YAML mapping: left as it is (remove ${Object.keys(edit).join(', ')} yourself)`];
    const pair = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === key);
    const value = pair && isScalar(pair.value) ? pair.value : undefined;
    if (!pair || !value?.range) continue;
    if (String(value.value) !== wrote) {
      report.push(`kept ${key} in ${path}: it was changed since beacon install set it`);
      continue;
    }
    if (previous === null) {
      const start = (pair.key as { range?: [number, number, number] }).range![0];
      const lineStart = text.lastIndexOf('\n', start - 1) + 1;
      const nl = text.indexOf('\n', value.range[1]);
      text = text.slice(0, lineStart) + text.slice(nl < 0 ? text.length : nl + 1);
      report.push(`removed ${key} from ${path}`);
    } else {
      text = text.slice(0, value.range[0]) + previous + text.slice(value.range[1]);
      report.push(`restored ${key}: ${previous} in ${path}`);
    }
  }
  if (report.some((l) => !l.startsWith('kept'))) writeInTree(path, text);
  return report;
}
