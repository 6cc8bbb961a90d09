import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
import { BeaconError } from '../model/errors';

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
  const doc = parseDocument(readFileSync(path, 'utf8'));
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
export function configureOtlp(path: string, endpoint: string, now = new Date()): { changed: boolean; backup?: string } {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, otlpSnippet(endpoint));
    return { changed: true };
  }
  const text = readFileSync(path, 'utf8');
  const doc = parseDocument(text);
  const byHand = `add the keys by hand:\n${otlpSnippet(endpoint)}`;
  if (doc.errors.length > 0) throw new BeaconError('usage', `${path} is not valid YAML (${doc.errors[0]!.message}); fix it or ${byHand}`);
  if (doc.contents !== null && !isMap(doc.contents)) throw new BeaconError('usage', `${path} is not a YAML mapping; ${byHand}`);
  if (doc.get(ENDPOINT_KEY) === endpoint && doc.has(TIMEOUT_KEY)) return { changed: false };

  let out = text;
  const pair = isMap(doc.contents) ? doc.contents.items.find((p) => isScalar(p.key) && p.key.value === ENDPOINT_KEY) : undefined;
  if (pair) {
    const v = pair.value;
    if (!isScalar(v) || !v.range) throw new BeaconError('usage', `${path}: ${ENDPOINT_KEY} is not a plain value; ${byHand}`);
    out = out.slice(0, v.range[0]) + endpoint + out.slice(v.range[1]);
  }
  const append: string[] = [];
  if (!pair) append.push(`${ENDPOINT_KEY}: ${endpoint}`);
  if (!doc.has(TIMEOUT_KEY)) append.push(`${TIMEOUT_KEY}: ${DEFAULT_TIMEOUT_MS}`);
  if (append.length > 0) out = `${out}${out === '' || out.endsWith('\n') ? '' : '\n'}${append.join('\n')}\n`;

  const check = parseDocument(out);
  if (check.errors.length > 0 || check.get(ENDPOINT_KEY) !== endpoint) throw new BeaconError('internal', `editing ${path} did not give the expected result; ${byHand}`);
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const backup = `${path}.beacon-backup-${stamp}`;
  copyFileSync(path, backup);
  writeFileSync(path, out);
  return { changed: true, backup };
}
