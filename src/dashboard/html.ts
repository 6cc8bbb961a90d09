/**
 * HTML built from template literals where every interpolated value is escaped unless it is already
 * `Html` (built by this module). Recorded strings are hostile: prompts, commands, paths and diffs can
 * hold markup, attribute breaks, `javascript:` URLs, ANSI escapes and bidi overrides. Escaping turns
 * markup inert; control and bidi characters become visible symbols, so a terminal escape in a prompt
 * shows as ␛[31m instead of vanishing, and an override cannot reorder what a person reads.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/[&<>"'`]/g, (c) => ENTITIES[c]!)
    // C0 controls except tab and newline, and DEL → the Unicode control pictures (␛ for ESC)
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => String.fromCharCode(c === '\u007f' ? 0x2421 : 0x2400 + c.charCodeAt(0)))
    // bidi embeddings, overrides and isolates; C1 controls
    .replace(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

function part(v: unknown): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(part).join('');
  return escapeHtml(v);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** A same-origin link: a fixed path and query parameters, URL-encoded (never a recorded URL). */
export function href(path: string, params: Record<string, string | number | bigint | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
