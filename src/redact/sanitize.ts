import { createHash } from 'node:crypto';
import type { BeaconRecord, ContentField } from '../model/record';
import { capRecord } from './event-cap';
import { MARK, STRING_LIMIT, STRUCTURED_STRING_LIMIT, truncateString } from './limits';
import { judgeName, secretValue } from './names';
import { namedValueKey, secretItems } from './pairs';
import { maySecret, REDACTED, redactKnown, redactText } from './secrets';

export type { ContentField } from '../model/record';

/** Sections whose strings are identifiers or locations, never free text: not redacted. */
const NOT_REDACTED_SECTIONS = new Set(['timestamp', 'vendor', 'product', 'schema_version', 'event', 'harness', 'endpoint', 'trace', 'branch', 'session', 'content']);
const NOT_REDACTED_PATHS = new Set(['file.path', 'tool.path', 'file.diff_hash']);
/**
 * Free text inside those sections, redacted by form all the same: an agent's version and a working
 * directory are what a user or a resource says they are (a token there leaked, issue 22 item 9).
 */
const REDACTED_IN_ID_SECTIONS: readonly (readonly [string, string])[] = [['harness', 'version'], ['session', 'working_directory'], ['endpoint', 'agent_version']];
/** Structured protocol sections get the smaller per-string limit, as in the Go collector. */
const STRUCTURED_SECTIONS = new Set(['gen_ai', 'mcp', 'raw']);
/**
 * A string longer than its limit is redacted over its first limit + this many characters only (the
 * rest is cut anyway): a secret that starts before the cut is redacted whole, and a multi-megabyte
 * tool result costs no more than 12 KiB of scanning.
 */
const WINDOW_SLACK = 8192;
/**
 * The primary content and the diff are redacted whole, so their hashes cover the whole redacted
 * text — up to this many characters (the event cap is 64 KiB anyway); past it, the hash covers
 * the redacted first 64 Ki characters and the marker says truncated. This bounds the scan of a
 * hostile multi-megabyte prompt.
 */
const CONTENT_WINDOW = 65536;
const NOT_A_VALUE = /^(?:true|false|null|\[REDACTED\])$/i;

export interface Sanitized {
  record: BeaconRecord;
  /** the record serialized, at most EVENT_LIMIT bytes */
  json: string;
}

/** A string that needs a last step once every secret in the event is known: the cut, a hash. */
interface Pending {
  holder: Record<string, unknown>;
  key: string;
  limit: number;
  /** only a window of it was redacted: it is cut even if redaction shrank it below the limit */
  windowed: boolean;
  /** the event's primary content: its hash goes in the content marker */
  content: boolean;
  /** the content's text before redaction (windowed as redacted), to tell whether redaction changed it */
  unredacted?: string;
  /** file.diff: its hash is file.diff_hash */
  diff: boolean;
}

interface Walk {
  /** false only for the bench's baseline (limits and markers without redaction) */
  redact: boolean;
  contentField: string | undefined;
  /** secret values seen anywhere in the event, replaced everywhere in the second step */
  found: Set<string>;
  pending: Pending[];
}

/**
 * Applies Beacon's data handling to a record, in place, before it is written: secret redaction (by
 * key name at any depth, then by form in every string), per-string limits (after redaction, so no
 * part of a secret survives a cut), a content marker on the event's primary content, and the 64 KiB
 * event cap. Hashes (`content.hash`, `file.diff_hash`) are of the redacted, uncut text, so a holder
 * of the log cannot test a guessed secret against them. Throws `bad_data` when even the stripped
 * record is too big.
 */
export function sanitizeRecord(record: BeaconRecord, contentField?: ContentField): Sanitized {
  return sanitize(record, contentField, true);
}

/** The same steps without any redaction: the baseline `npm run bench` measures redaction's cost against. */
export function limitRecordUnredacted(record: BeaconRecord, contentField?: ContentField): Sanitized {
  return sanitize(record, contentField, false);
}

function sanitize(record: BeaconRecord, contentField: ContentField | undefined, redact: boolean): Sanitized {
  const original = contentField ? getPath(record, contentField) : undefined;
  const w: Walk = { redact, contentField, found: new Set(), pending: [] };
  const root = record as unknown as Record<string, unknown>;
  for (const section of Object.keys(root)) {
    if (NOT_REDACTED_SECTIONS.has(section)) {
      limitOnly(root, section, limitFor(section, '')); // identifiers are not redacted, but limited all the same
      continue;
    }
    const v = root[section];
    if (typeof v === 'string') visitString(w, root, section, limitFor(section, ''), '');
    else if (v !== null && typeof v === 'object') walkSection(w, v as Record<string, unknown>, section);
  }

  if (redact) freeTextInIds(root, (t) => redactText(t, w.found));
  if (w.found.size > 0) {
    for (const section of Object.keys(root)) if (!NOT_REDACTED_SECTIONS.has(section)) replaceKnown(root, section, w.found);
    freeTextInIds(root, (t) => redactKnown(t, w.found));
  }

  let contentTruncated = false;
  let contentRedacted = false;
  let contentFull: string | undefined;
  for (const p of w.pending) {
    const full = p.holder[p.key] as string;
    if (p.content) {
      contentFull = full;
      contentRedacted = full !== p.unredacted;
    }
    if (p.diff && record.file) record.file.diff_hash = sha256(full);
    const cut = truncateString(full, p.limit);
    let value = cut.value;
    if (p.windowed && !cut.truncated) value = dropLoneSurrogate(value) + MARK;
    p.holder[p.key] = value;
    if (p.content) contentTruncated = cut.truncated || p.windowed;
  }

  if (typeof original === 'string' && original.length > 0) {
    const stored = contentFull ?? (getPath(record, contentField!) as string);
    record.content = {
      retention: 'full',
      included: true,
      hash: sha256(stored),
      bytes: Buffer.byteLength(original, 'utf8'),
      ...(contentTruncated ? { truncated: true } : {}),
      ...(contentRedacted ? { redacted: true } : {}),
    };
  }
  return { record, json: capRecord(record) };
}

/**
 * A copy of any JSON-like value with its secrets redacted as a record's are (by key name, then by
 * form), with no limits and no markers: for what is printed rather than stored.
 */
export function redactValue<T>(value: T): T {
  const holder: Record<string, unknown> = { value: structuredClone(value) };
  const w: Walk = { redact: true, contentField: undefined, found: new Set(), pending: [] };
  walkNode(w, holder, Number.POSITIVE_INFINITY);
  if (w.found.size > 0) replaceKnown(holder, 'value', w.found);
  return holder.value as T;
}

/** The few strings of the identifier sections that are free text all the same (a version, a directory). */
function freeTextInIds(root: Record<string, unknown>, redactString: (s: string) => string): void {
  for (const [section, key] of REDACTED_IN_ID_SECTIONS) {
    const holder = root[section] as Record<string, unknown> | undefined;
    if (holder && typeof holder === 'object' && typeof holder[key] === 'string') holder[key] = redactString(holder[key] as string);
  }
}

/** The shortest credential the rule set knows is longer than this; a shorter key is a name. */
const MIN_SECRET_KEY = 16;
/** Keys found plain (bounded: a flood of distinct keys only empties it). */
const PLAIN_KEYS = new Set<string>();
const PLAIN_KEYS_MAX = 4096;

/**
 * A key that is itself a secret (`{"ghp_…": {…}}`) is renamed `[REDACTED]` (`[REDACTED]2`… when
 * taken), its value kept under the new name. Returns the key the value now lives under.
 */
function redactKey(w: Walk, node: Record<string, unknown>, key: string): string {
  // Every key of every record passes here, and the same attribute names recur in every span: a key
  // too short to be a credential, or one already found plain, costs a lookup, not a scan (measured:
  // scanning every key was ~6% of the one-thread ingest pipeline).
  if (key.length < MIN_SECRET_KEY || PLAIN_KEYS.has(key)) return key;
  if (!maySecret(key)) {
    if (PLAIN_KEYS.size >= PLAIN_KEYS_MAX) PLAIN_KEYS.clear();
    PLAIN_KEYS.add(key);
    return key;
  }
  const renamed = redactText(key, w.found);
  if (renamed === key) return key;
  let name = renamed;
  for (let n = 2; Object.prototype.hasOwnProperty.call(node, name); n++) name = `${renamed}${n}`;
  node[name] = node[key];
  delete node[key];
  return name;
}

function sha256(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}

function limitFor(section: string, dotted: string): number {
  return STRUCTURED_SECTIONS.has(section) || dotted === 'tool.path' ? STRUCTURED_STRING_LIMIT : STRING_LIMIT;
}

function walkSection(w: Walk, node: Record<string, unknown>, section: string): void {
  const limit = limitFor(section, '');
  if (Array.isArray(node)) {
    walkNode(w, node, limit);
    return;
  }
  for (const original of Object.keys(node)) {
    const key = w.redact ? redactKey(w, node, original) : original;
    const v = node[key];
    const dotted = `${section}.${key}`;
    if (typeof v === 'string') {
      if (NOT_REDACTED_PATHS.has(dotted)) limitOnly(node, key, limitFor(section, dotted));
      else visitString(w, node, key, limitFor(section, dotted), dotted);
    } else if (v !== null && typeof v === 'object') {
      const verdict = w.redact ? judgeName(key) : 'plain';
      if (verdict !== 'plain') redactAll(w, node, key, verdict === 'secret-unless-count');
      else walkNode(w, v as Record<string, unknown>, limit);
    }
  }
}

/** Any depth below a section: a secret-named key loses its whole value. */
function walkNode(w: Walk, node: Record<string, unknown> | unknown[], limit: number): void {
  if (Array.isArray(node)) {
    // a header pair's value, a secret flag's argument: secrets by their place in the list
    const placed = w.redact ? secretItems(node) : [];
    for (let i = 0; i < node.length; i++) {
      const v = node[i];
      if (placed.includes(i)) redactAll(w, node as unknown as Record<string, unknown>, i as unknown as string);
      else if (typeof v === 'string') visitString(w, node as unknown as Record<string, unknown>, i as unknown as string, limit, '');
      else if (v !== null && typeof v === 'object') walkNode(w, v as Record<string, unknown>, limit);
    }
    return;
  }
  // `{"name": "DB_PASSWORD", "value": …}`: the value's name is its sibling's value
  const named = w.redact ? namedValueKey(node) : undefined;
  if (named !== undefined) redactAll(w, node, named);
  for (const original of Object.keys(node)) {
    if (original === named) continue;
    const key = w.redact ? redactKey(w, node, original) : original;
    const v = node[key];
    if (v === null || v === undefined || typeof v === 'boolean') continue;
    const verdict = w.redact ? judgeName(key) : 'plain';
    if (verdict !== 'plain') {
      if (typeof v === 'string') {
        if (v !== '' && !NOT_A_VALUE.test(v) && secretValue(verdict, v)) {
          if (v.length >= 8) w.found.add(v.length > STRING_LIMIT + WINDOW_SLACK ? v.slice(0, STRING_LIMIT) : v);
          node[key] = REDACTED;
        } else visitString(w, node, key, limit, '');
      } else redactAll(w, node, key, verdict === 'secret-unless-count');
      continue;
    }
    if (typeof v === 'string') visitString(w, node, key, limit, '');
    else if (typeof v === 'object') walkNode(w, v as Record<string, unknown>, limit);
  }
}

/**
 * Every string and number under a secret-named key (`"credentials": {…}`) is redacted; under a
 * plural (`"tokens": […]`) numbers are counts and stay.
 */
function redactAll(w: Walk, holder: Record<string, unknown>, key: string, keepNumbers = false): void {
  const v = holder[key];
  if (typeof v === 'string') {
    if (v !== '' && !NOT_A_VALUE.test(v)) {
      if (v.length >= 8 && v.length <= STRING_LIMIT) w.found.add(v);
      holder[key] = REDACTED;
    }
  } else if (typeof v === 'number') {
    if (!keepNumbers) holder[key] = REDACTED;
  } else if (v !== null && typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    for (const k of Object.keys(obj)) redactAll(w, obj, redactKey(w, obj, k), keepNumbers);
  }
}

function visitString(w: Walk, holder: Record<string, unknown>, key: string, limit: number, dotted: string): void {
  const s = holder[key] as string;
  const content = dotted !== '' && dotted === w.contentField;
  const diff = dotted === 'file.diff';
  const window = content || diff ? CONTENT_WINDOW : limit + WINDOW_SLACK;
  const windowed = s.length > window;
  const text = windowed ? dropLoneSurrogate(s.slice(0, window)) : s;
  const value = w.redact ? redactText(text, w.found) : text;
  if (value !== s) holder[key] = value;
  if (content || diff || windowed || value.length * 3 > limit) w.pending.push({ holder, key, limit, windowed, content, diff, ...(content ? { unredacted: text } : {}) });
}

/** Cuts every string under `holder[key]` to `limit` bytes, redacting nothing. */
function limitOnly(holder: Record<string, unknown>, key: string, limit: number): void {
  const v = holder[key];
  if (typeof v === 'string') {
    if (v.length * 3 > limit) holder[key] = truncateString(v, limit).value;
  } else if (v !== null && typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    for (const k of Object.keys(obj)) limitOnly(obj, k, limit);
  }
}

function replaceKnown(holder: Record<string, unknown>, key: string, found: ReadonlySet<string>): void {
  const v = holder[key];
  if (typeof v === 'string') {
    const out = redactKnown(v, found);
    if (out !== v) holder[key] = out;
  } else if (v !== null && typeof v === 'object') {
    const obj = v as Record<string, unknown>;
    for (const k of Object.keys(obj)) {
      if (NOT_REDACTED_PATHS.has(`${key}.${k}`)) continue;
      replaceKnown(obj, k, found);
    }
  }
}

function dropLoneSurrogate(s: string): string {
  const last = s.charCodeAt(s.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? s.slice(0, -1) : s;
}

function getPath(record: BeaconRecord, dotted: string): unknown {
  let node: unknown = record;
  for (const k of dotted.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[k];
  }
  return node;
}
