import type { AttrValue } from '../../model/span';
import { structuredAttr } from '../attributes';

/** `gen_ai.response.finish_reasons` is a string array by the conventions; goose sends a JSON string of one. */
export function finishReasons(value: AttrValue | undefined): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const v = structuredAttr(value);
  if (Array.isArray(v)) return v.filter((x) => x !== null && x !== undefined).map(String);
  return [String(v)];
}

/**
 * The agent's reasoning: the `reasoning` parts of `gen_ai.output.messages` (JSON string or structured),
 * in order. goose exports them only when content capture is on.
 */
export function reasoningText(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const texts: string[] = [];
  for (const m of messages) {
    const parts = typeof m === 'object' && m !== null ? (m as { parts?: unknown }).parts : undefined;
    if (!Array.isArray(parts)) continue;
    for (const p of parts) {
      if (typeof p !== 'object' || p === null) continue;
      const { type, content } = p as { type?: unknown; content?: unknown };
      if (type !== 'reasoning' && type !== 'thinking') continue;
      if (typeof content === 'string') texts.push(content);
      else if (content !== undefined && content !== null) texts.push(JSON.stringify(content));
    }
  }
  const text = texts.join('\n');
  return text === '' ? undefined : text;
}
