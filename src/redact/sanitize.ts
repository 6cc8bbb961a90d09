import { createHash } from 'node:crypto';
import { BeaconError } from '../model/errors';
import type { BeaconRecord, ContentField } from '../model/record';
import { EVENT_LIMIT, STRING_LIMIT, STRUCTURED_STRING_LIMIT, truncateString } from './limits';
import { collectSecretValues, maySecret, redactString } from './secrets';


export type { ContentField } from '../model/record';

/** Sections whose strings are identifiers or locations, never free text: not redacted. */
const NOT_REDACTED_SECTIONS = new Set(['timestamp', 'vendor', 'product', 'schema_version', 'event', 'harness', 'endpoint', 'trace', 'repository', 'branch', 'session', 'content']);
const NOT_REDACTED_PATHS = new Set(['file.path', 'tool.path', 'file.diff_hash']);
/** Structured protocol sections get the smaller per-string limit, as in the Go collector. */
const STRUCTURED_SECTIONS = new Set(['gen_ai', 'mcp', 'raw']);

export interface Sanitized {
  record: BeaconRecord;
  /** the record serialized, at most EVENT_LIMIT bytes */
  json: string;
}

/**
 * Applies Beacon's data handling to a record, in place, before it is written: per-string limits
 * (truncation first, as the Go Beacon does), secret redaction, a content marker on the event's
 * primary content, and the 64 KiB event cap. Throws `bad_data` when even the stripped record is too big.
 */
export function sanitizeRecord(record: BeaconRecord, contentField?: ContentField): Sanitized {
  const original = contentField ? getPath(record, contentField) : undefined;

  // One walk truncates (before redaction, as the Go Beacon does) and looks for anything secret-like;
  // only an event that has some pays for the second, redacting walk.
  const secrets = new Set<string>();
  let suspicious = false;
  let contentTruncated = false;
  visitStrings(record, [], (s, path) => {
    const section = path[0]!;
    const dotted = path.length === 2 ? `${path[0]}.${path[1]}` : '';
    const limit = STRUCTURED_SECTIONS.has(section) || dotted === 'tool.path' ? STRUCTURED_STRING_LIMIT : STRING_LIMIT;
    const cut = truncateString(s, limit);
    if (contentField && dotted === contentField) contentTruncated = cut.truncated;
    if (isRedacted(section, dotted) && maySecret(cut.value)) {
      suspicious = true;
      collectSecretValues(cut.value, secrets);
    }
    return cut.value;
  });

  let contentRedacted = false;
  if (suspicious) {
    visitStrings(record, [], (s, path) => {
      const section = path[0]!;
      const dotted = path.length === 2 ? `${path[0]}.${path[1]}` : '';
      if (!isRedacted(section, dotted)) return s;
      const value = redactString(s, secrets);
      if (contentField && dotted === contentField) contentRedacted = value !== s;
      return value;
    });
  }

  if (typeof original === 'string' && original.length > 0) {
    record.content = {
      retention: 'full',
      included: true,
      hash: createHash('sha256').update(original, 'utf8').digest('hex'),
      bytes: Buffer.byteLength(original, 'utf8'),
      ...(contentTruncated ? { truncated: true } : {}),
      ...(contentRedacted ? { redacted: true } : {}),
    };
  }
  return { record, json: capRecord(record) };
}

/** The Go hook logger's three steps to fit an event into 64 KiB, then an error. */
function capRecord(record: BeaconRecord): string {
  let json = JSON.stringify(record);
  if (fits(json)) return json;

  delete record.raw;
  if (typeof record.message === 'string') record.message = truncateString(record.message, 1024).value;
  record.field_truncated = true;
  json = JSON.stringify(record);
  if (fits(json)) return json;

  if (record.file) delete record.file.diff;
  if (record.command) delete record.command.output;
  if (record.gen_ai) {
    delete (record.gen_ai as Record<string, unknown>).input;
    delete record.gen_ai.output;
    if (record.gen_ai.tool?.call) {
      delete record.gen_ai.tool.call.arguments;
      delete record.gen_ai.tool.call.result;
    }
  }
  delete record.reasoning;
  if (record.content) {
    record.content.included = false;
    record.content.truncated = true;
  }
  json = JSON.stringify(record);
  if (fits(json)) return json;

  const keep = ['timestamp', 'vendor', 'product', 'schema_version', 'event', 'severity', 'endpoint', 'user', 'harness', 'origin', 'run', 'session', 'trace', 'error', 'tool', 'file', 'command', 'mcp', 'approval', 'policy', 'content', 'destination', 'health', 'model', 'repository', 'branch', 'message', 'field_truncated'];
  const slim: Record<string, unknown> = {};
  for (const k of keep) if ((record as unknown as Record<string, unknown>)[k] !== undefined) slim[k] = (record as unknown as Record<string, unknown>)[k];
  const g = record.gen_ai;
  if (g) {
    slim.gen_ai = {
      operation: g.operation,
      usage: g.usage,
      response: g.response,
      provider: g.provider,
      tool: g.tool ? { name: g.tool.name, type: g.tool.type, call: g.tool.call ? { id: g.tool.call.id } : undefined } : undefined,
    };
  }
  json = JSON.stringify(slim);
  if (fits(json)) {
    for (const k of Object.keys(record)) delete (record as unknown as Record<string, unknown>)[k];
    Object.assign(record, slim);
    return json;
  }
  throw new BeaconError('bad_data', `event ${record.event.action} exceeds ${EVENT_LIMIT} bytes even after dropping its content`);
}

function isRedacted(section: string, dotted: string): boolean {
  return !NOT_REDACTED_SECTIONS.has(section) && !NOT_REDACTED_PATHS.has(dotted);
}

function fits(json: string): boolean {
  return json.length <= EVENT_LIMIT / 3 || Buffer.byteLength(json, 'utf8') <= EVENT_LIMIT;
}

type StringFn = (s: string, path: readonly string[]) => string;

function visitStrings(node: unknown, path: string[], fn: StringFn): void {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const v = node[i];
      if (typeof v === 'string') node[i] = fn(v, path);
      else if (v !== null && typeof v === 'object') visitStrings(v, path, fn);
    }
    return;
  }
  const obj = node as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (typeof v === 'string') {
      path.push(key);
      obj[key] = fn(v, path);
      path.pop();
    } else if (v !== null && typeof v === 'object') {
      path.push(key);
      visitStrings(v, path, fn);
      path.pop();
    }
  }
}

function getPath(record: BeaconRecord, dotted: string): unknown {
  let node: unknown = record;
  for (const k of dotted.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[k];
  }
  return node;
}
