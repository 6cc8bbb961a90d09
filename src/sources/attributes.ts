import { cutDeepNesting } from '../model/nesting';
import { quoteInput } from '../model/quote-input';
import type { AttrValue, Attributes } from '../model/span';

/** A span whose GenAI attributes are invalid: it is rejected (counted in partial success), the rest of the export is kept. */
export class SpanRejected extends Error {}

export function stringAttr(attrs: Attributes, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = attrs[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

export function numberAttr(attrs: Attributes, key: string): number | undefined {
  const v = attrs[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function boolAttr(attrs: Attributes, key: string): boolean | undefined {
  const v = attrs[key];
  return typeof v === 'boolean' ? v : undefined;
}

/**
 * A token count: a non-negative integer (int, integral double, or decimal string). Anything else
 * is invalid data, and the span is rejected rather than stored with a made-up number.
 */
export function tokenAttr(attrs: Attributes, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = attrs[k];
    if (v === undefined || v === null) continue;
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
    if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v);
    throw new SpanRejected(`${k} must be a non-negative integer, got ${quoteInput(v)}`);
  }
  return undefined;
}

/** OTel allows structured values "as a JSON string when structured attributes are not supported": accept both. */
export function structuredAttr(value: AttrValue | undefined): unknown {
  if (typeof value !== 'string') return value;
  const t = value.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      // nested deeper than redaction can walk: cut and marked, the span kept (issue 22 item 14)
      return cutDeepNesting(JSON.parse(value) as unknown).value;
    } catch {
      return value;
    }
  }
  return value;
}

/** A number sent as an int, a double or a decimal string (Rust exporters and Claude Code send some counts as strings). */
export function numberLike(attrs: Attributes, key: string): number | undefined {
  const v = attrs[key];
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  return undefined;
}

/** A boolean sent as a bool or as the string "true"/"false". */
export function boolLike(attrs: Attributes, key: string): boolean | undefined {
  const v = attrs[key];
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}

/** A value parsed from an agent's JSON (tool arguments, stream lines) when it is a string. */
export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
