import { isDeepStrictEqual } from 'node:util';
import type { ParseError } from 'jsonc-parser';
import { BeaconError } from '../../model/errors';

// Both parsers load when a settings file is read or edited, not with this module: `beacon doctor`
// loads it for every agent it looks for, most of which have no settings file, and jsonc-parser
// costs ~16 ms to load, smol-toml ~2.5 ms (issue 25: doctor <= 2x a bare Node start).
const jsonc = () => require('jsonc-parser') as typeof import('jsonc-parser');
// smol-toml ships a CommonJS build (its exports' "require" condition) beside the ES module that its
// types describe: required here, typed by hand (the one function used).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const parseToml = (text: string) => (require('smol-toml') as { parse(text: string): Record<string, unknown> }).parse(text);

/**
 * In-place edits of an agent's own settings file: only the keys Beacon owns change, every other
 * byte (comments, order, spacing, trailing commas) stays. JSON-with-comments through Microsoft's
 * jsonc-parser (VS Code's: `modify` computes a minimal text edit); TOML by a textual edit of the
 * owned table's lines, parsed with smol-toml before and after so that an edit that would change
 * anything else is refused rather than written.
 */
export type SettingsFormat = 'json' | 'toml';

/** One key Beacon owns: its path in the document (TOML: [table, key]) and the value it wants. */
export interface KeyValue {
  path: string[];
  value: unknown;
}

/** The parsed document, or why it cannot be read (a file that does not parse is never edited). */
export function parseSettings(format: SettingsFormat, text: string): { doc: Record<string, unknown>; error?: undefined } | { doc?: undefined; error: string } {
  if (text.trim() === '') return { doc: {} };
  if (format === 'json') {
    const errors: ParseError[] = [];
    const { parse: parseJsonc, printParseErrorCode } = jsonc();
    const doc = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
    if (errors.length > 0) return { error: `${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}` };
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return { error: 'the top level is not an object' };
    return { doc: doc as Record<string, unknown> };
  }
  try {
    // Plain objects (smol-toml's tables have no prototype, its dates are objects): compared as data.
    return { doc: JSON.parse(JSON.stringify(parseToml(text), (_k, v) => (typeof v === 'bigint' ? v.toString() : v))) as Record<string, unknown> };
  } catch (e) {
    return { error: (e as Error).message.split('\n')[0]! };
  }
}

export function getPath(doc: unknown, path: readonly string[]): unknown {
  let v: unknown = doc;
  for (const k of path) {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

function setPath(doc: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let o = doc;
  for (const k of path.slice(0, -1)) {
    if (typeof o[k] !== 'object' || o[k] === null) o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  if (value === undefined) delete o[path[path.length - 1]!];
  else o[path[path.length - 1]!] = value;
}

/** The raw text of a key's value in the file (to put back byte for byte), or undefined. */
export function rawValue(format: SettingsFormat, text: string, path: readonly string[]): string | undefined {
  if (format === 'json') {
    const { parseTree, findNodeAtLocation } = jsonc();
    const root = parseTree(text, [], { allowTrailingComma: true });
    const node = root && findNodeAtLocation(root, [...path]);
    return node ? text.slice(node.offset, node.offset + node.length) : undefined;
  }
  const line = tomlKeyLine(text, path);
  return line ? text.slice(line.valueStart, line.valueEnd) : undefined;
}

/**
 * Sets each key (value undefined: removes it; `raw` given: that exact text as the value) and returns
 * the new text. Checked: the result parses, and equals the old document with exactly these keys
 * changed; otherwise a BeaconError names the file and nothing is written by the caller.
 */
export function applySettings(format: SettingsFormat, file: string, text: string, keys: ReadonlyArray<KeyValue & { raw?: string }>): string {
  const before = parseSettings(format, text);
  if (before.error !== undefined) throw new BeaconError('bad_data', `${file} does not parse (${before.error}): fix it first. Nothing was changed.`);
  let out = text;
  for (const k of keys) out = format === 'json' ? jsonSet(out, k.path, k.value, k.raw) : tomlSet(out, file, k.path, k.value, k.raw);
  const after = parseSettings(format, out);
  const expected = structuredClone(before.doc);
  for (const k of keys) setPath(expected, k.path, k.value);
  if (after.error !== undefined || !isDeepStrictEqual(after.doc, expected)) {
    throw new BeaconError('internal', `editing ${file} in place would not give the expected result; set ${keys.map((k) => k.path.join('.')).join(', ')} by hand. Nothing was changed.`);
  }
  return out;
}

/** One edit of a JSON array: append `value` to the array at `path` (created when absent), or remove its element `index`. */
export type ArrayEdit = { path: string[]; append: unknown } | { path: string[]; remove: number };

/**
 * Array edits in place (jsonc-parser's `modify`: the user's other elements, comments and layout
 * kept), checked as applySettings checks its keys: the result parses and equals the old document
 * with exactly these elements added or removed, else nothing is written by the caller.
 */
export function applyArrayEdits(file: string, text: string, edits: readonly ArrayEdit[]): string {
  const before = parseSettings('json', text);
  if (before.error !== undefined) throw new BeaconError('bad_data', `${file} does not parse (${before.error}): fix it first. Nothing was changed.`);
  const expected = structuredClone(before.doc);
  let out = text;
  const { applyEdits, modify } = jsonc();
  for (const e of edits) {
    const fresh = out.trim() === '';
    const base = fresh ? '{}' : out;
    const current = getPath(expected, e.path);
    if ('append' in e) {
      out = (Array.isArray(current)
        ? styledModify(base, [...e.path, -1], e.append, true)
        : styledModify(base, [...e.path], [e.append], false)) + (fresh ? '\n' : '');
      if (Array.isArray(current)) current.push(e.append);
      else setPath(expected, e.path, [e.append]);
    } else {
      if (!Array.isArray(current) || e.remove >= current.length) throw new BeaconError('internal', `${file}: no element ${e.remove} in ${e.path.join('.')}`);
      out = applyEdits(base, modify(base, [...e.path, e.remove], undefined, { formattingOptions: jsonFormatting(base) }));
      current.splice(e.remove, 1);
    }
  }
  const after = parseSettings('json', out);
  if (after.error !== undefined || !isDeepStrictEqual(after.doc, expected)) {
    throw new BeaconError('internal', `editing ${file} in place would not give the expected result; edit ${edits.map((e) => e.path.join('.')).join(', ')} by hand. Nothing was changed.`);
  }
  return out;
}

// ---- JSON with comments ----------------------------------------------------------------------

function jsonFormatting(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /\n([ \t]+)\S/.exec(text);
  if (m && m[1]!.startsWith('\t')) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: m ? m[1]!.length : 2, eol };
}

function jsonSet(text: string, path: readonly string[], value: unknown, raw: string | undefined): string {
  const fresh = text.trim() === '';
  const base = fresh ? '{}' : text;
  const { findNodeAtLocation, parseTree } = jsonc();
  if (raw !== undefined) {
    // A replaced value goes back exactly as the user wrote it (comments inside it included).
    const root = parseTree(base, [], { allowTrailingComma: true });
    const node = root && findNodeAtLocation(root, [...path]);
    if (node) return base.slice(0, node.offset) + raw + base.slice(node.offset + node.length);
  }
  return styledModify(base, [...path], value, false) + (fresh ? '\n' : '');
}

/**
 * jsonc-parser's `modify`, in the style of the object or array the value lands in, touching no
 * byte outside its own edit. jsonc formats whole lines around an edit, so a neighbour on the same
 * line (a one-line `"permissions": {"allow": […]}` before the insertion point, or every key of a
 * one-line file) was expanded with it (issue 33). Here: a container written on one line gets the
 * value unformatted, on that line; in a multi-line container the value is formatted as jsonc
 * would, and only the inserted text is taken from jsonc's formatted result. A formatter changes
 * whitespace only (never inside strings), so the inserted text is found in the formatted result
 * by counting the characters that are not whitespace.
 */
function styledModify(base: string, path: Array<string | number>, value: unknown, isArrayInsertion: boolean): string {
  const { applyEdits, findNodeAtLocation, modify, parseTree } = jsonc();
  const plain = modify(base, path, value, { isArrayInsertion });
  const root = parseTree(base, [], { allowTrailingComma: true });
  let container = root;
  for (let n = path.length - 1; n >= 0 && root; n--) {
    const node = findNodeAtLocation(root, path.slice(0, n));
    if (node) { container = node; break; }
  }
  const written = container ? base.slice(container.offset, container.offset + container.length) : '';
  // an empty container (a new file's `{}`) has no style of its own to keep: formatted
  const oneLine = container !== undefined && (container.children?.length ?? 0) > 0 && !/[\r\n]/.test(written);
  if (plain.length === 1 && oneLine) {
    const u = plain[0]!;
    // `{"a": 1, "b": 2}`: the separator the user writes
    const content = written.includes(', ') && u.content.startsWith(',') && !u.content.startsWith(', ') ? `, ${u.content.slice(1)}` : u.content;
    return base.slice(0, u.offset) + content + base.slice(u.offset + u.length);
  }
  if (plain.length !== 1) return applyEdits(base, plain);
  const formatted = modify(base, path, value, { isArrayInsertion, formattingOptions: jsonFormatting(base) });
  if (formatted.length !== 1) return applyEdits(base, formatted);
  const u = plain[0]!;
  const f = formatted[0]!;
  const solid = (text: string) => text.replace(/\s+/g, '').length;
  const before = solid(base.slice(f.offset, u.offset));
  const inserted = solid(u.content);
  if (f.offset > u.offset || inserted === 0) return applyEdits(base, formatted);
  // the formatted content's characters `before` … `before + inserted - 1` (whitespace not counted) are the edit's own
  let seen = 0;
  let start = -1;
  let end = -1;
  for (let i = 0; i < f.content.length; i++) {
    if (/\s/.test(f.content[i]!)) continue;
    if (seen === before) start = i;
    if (seen === before + inserted - 1) { end = i + 1; break; }
    seen++;
  }
  if (start < 0 || end < 0) return applyEdits(base, formatted);
  // After a separator the text starts at the comma; a container's first member takes with it the
  // line break and indent jsonc puts before it.
  let lead = start;
  if (f.content[start] !== ',') while (lead > 0 && /\s/.test(f.content[lead - 1]!)) lead--;
  return base.slice(0, u.offset) + f.content.slice(lead, end) + base.slice(u.offset + u.length);
}

// ---- TOML: the lines of one table -------------------------------------------------------------

const TABLE_HEADER = /^[ \t]*\[/;

/** The lines of `[table]` in the file: where its header is and where its body ends. */
function tomlTable(text: string, table: string): { headerStart: number; bodyStart: number; bodyEnd: number } | undefined {
  const header = new RegExp(`^[ \\t]*\\[[ \\t]*(?:${escapeRe(table)}|"${escapeRe(table)}")[ \\t]*\\][ \\t]*(?:#.*)?$`, 'm');
  const m = header.exec(text);
  if (!m) return undefined;
  const nl = text.indexOf('\n', m.index);
  const bodyStart = nl < 0 ? text.length : nl + 1;
  let pos = bodyStart;
  while (pos < text.length) {
    const end = text.indexOf('\n', pos);
    const line = text.slice(pos, end < 0 ? text.length : end);
    if (TABLE_HEADER.test(line)) break;
    pos = end < 0 ? text.length : end + 1;
  }
  return { headerStart: m.index, bodyStart, bodyEnd: pos };
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

/**
 * The line holding `key = value` in the table: the value's span (without a trailing comment).
 * Only single-line values: the value is the shortest prefix before a `#` that parses as the value.
 */
function tomlKeyLine(text: string, path: readonly string[]): { lineStart: number; lineEnd: number; valueStart: number; valueEnd: number } | undefined {
  const [table, key] = path as [string, string];
  const t = tomlTable(text, table);
  if (!t) return undefined;
  const body = text.slice(t.bodyStart, t.bodyEnd);
  const m = new RegExp(`^[ \\t]*(?:${escapeRe(key)}|"${escapeRe(key)}")[ \\t]*=[ \\t]*`, 'm').exec(body);
  if (!m) return undefined;
  const lineStart = t.bodyStart + m.index;
  const nl = text.indexOf('\n', lineStart);
  const lineEnd = nl < 0 ? text.length : nl + 1;
  const valueStart = lineStart + m[0].length;
  const rest = text.slice(valueStart, nl < 0 ? text.length : nl).replace(/\r$/, '');
  const cuts = [...rest.matchAll(/#/g)].map((x) => x.index!).concat(rest.length);
  for (const cut of cuts) {
    const candidate = rest.slice(0, cut).trimEnd();
    try {
      parseToml(`v = ${candidate}`);
      return { lineStart, lineEnd, valueStart, valueEnd: valueStart + candidate.length };
    } catch {
      /* not the whole value yet */
    }
  }
  return undefined;
}

/** A value as TOML inline text: strings, booleans, numbers, inline tables. */
export function tomlInline(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'boolean' || typeof v === 'number') return String(v);
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const key = (k: string) => (/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k));
    return `{ ${Object.entries(v).map(([k, x]) => `${key(k)} = ${tomlInline(x)}`).join(', ')} }`;
  }
  throw new Error(`no TOML inline form for ${JSON.stringify(v)}`);
}

function tomlSet(text: string, file: string, path: readonly string[], value: unknown, raw: string | undefined): string {
  if (path.length !== 2) throw new Error('TOML keys are [table, key]');
  const [table, key] = path as [string, string];
  const byHand = `set it by hand in [${table}]. Nothing was changed.`;
  const line = tomlKeyLine(text, path);
  const parsed = parseSettings('toml', text).doc ?? {};
  if (!line && getPath(parsed, path) !== undefined) {
    throw new BeaconError('bad_data', `${file}: ${table}.${key} is written in a form Beacon does not edit (a dotted key, a sub-table or a multi-line value); ${byHand}`);
  }
  if (value === undefined) {
    if (!line) return text;
    let out = text.slice(0, line.lineStart) + text.slice(line.lineEnd);
    // A table Beacon's keys were alone in goes with them (its header and the blank line before it).
    const t = tomlTable(out, table);
    if (t && out.slice(t.bodyStart, t.bodyEnd).trim() === '') {
      let start = t.headerStart;
      if (start >= 2 && out.slice(start - 2, start) === '\n\n') start -= 1;
      out = out.slice(0, start) + out.slice(t.bodyEnd);
    }
    return out;
  }
  const valueText = raw ?? tomlInline(value);
  if (line) return text.slice(0, line.valueStart) + valueText + text.slice(line.valueEnd);
  const t = tomlTable(text, table);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const entry = `${key} = ${valueText}${eol}`;
  if (!t) {
    if (getPath(parsed, [table]) !== undefined) throw new BeaconError('bad_data', `${file}: ${table} is not written as a [${table}] table; ${byHand}`);
    const sep = text === '' ? '' : text.endsWith('\n') ? eol : `${eol}${eol}`;
    return `${text}${sep}[${table}]${eol}${entry}`;
  }
  // After the table's last key line, so trailing comments and blank lines stay before the next table.
  const body = text.slice(t.bodyStart, t.bodyEnd);
  const lines = body.split('\n');
  let offset = 0;
  let insertAt = 0;
  for (const l of lines) {
    const len = l.length + 1;
    if (/^[ \t]*[A-Za-z0-9_"'-][^=]*=/.test(l)) insertAt = Math.min(offset + len, body.length);
    offset += len;
  }
  const at = t.bodyStart + insertAt;
  const needsNl = at > 0 && text[at - 1] !== '\n';
  return text.slice(0, at) + (needsNl ? eol : '') + entry + text.slice(at);
}
