/**
 * The no-content rule for operational logs, enforced by pino rather than by each call site: logs
 * carry counts, sizes, durations and error codes. A future `logger.info({ record })` or
 * `logger.warn(`bad ${prompt}`)` is censored or cut here, and secrets are redacted from whatever
 * text remains (error messages, the message string).
 */
import type { LoggerOptions } from 'pino';
import { redactText } from './secrets';

/** Keys that hold recorded content wherever they appear (top level or one level down). */
const CONTENT_KEYS = ['record', 'records', 'row', 'rows', 'json', 'body', 'payload', 'span', 'spans', 'attributes', 'event', 'events', 'prompt', 'command', 'text', 'arguments', 'result', 'messages', 'content', 'reasoning', 'raw', 'input', 'output', 'diff', 'line', 'data'];
/** A log string longer than this is content, not an operational value (paths and ids are shorter). */
const MAX_STRING = 300;

function clean(s: string): string {
  const r = redactText(s);
  return r.length > MAX_STRING ? `${r.slice(0, 120)}…[${r.length} chars]` : r;
}

function errorSerializer(e: unknown): unknown {
  if (typeof e === 'string') return clean(e);
  if (e instanceof Error) return { type: e.name, message: clean(e.message), ...((e as { code?: unknown }).code ? { code: (e as { code?: unknown }).code } : {}) };
  return e;
}

export const LOG_POLICY: Pick<LoggerOptions, 'redact' | 'serializers' | 'hooks' | 'formatters'> = {
  // a count under one of these names (`spans: 100`) is operational and kept
  redact: { paths: [...CONTENT_KEYS, ...CONTENT_KEYS.map((k) => `*.${k}`)], censor: (v: unknown) => (typeof v === 'number' || typeof v === 'boolean' ? v : '[content]') },
  serializers: { err: errorSerializer, error: errorSerializer },
  hooks: {
    logMethod(args, method) {
      // the message string (and printf-style arguments): redacted and cut
      method.apply(this, args.map((a) => (typeof a === 'string' ? clean(a) : a)) as Parameters<typeof method>);
    },
  },
  formatters: {
    log(obj) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(obj)) out[k] = typeof v === 'string' ? clean(v) : v;
      return out;
    },
  },
};
