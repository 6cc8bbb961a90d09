import type { NormalizedEvent } from '../model/record';
import type { Attributes } from '../model/span';
import type { Observation } from './agent-events';

/**
 * What every store reader shares: an observation of a line (its time, session and a key naming it
 * among the store's records, so a re-import makes the same event ids) and the `poll` path.
 */
export function storeObservation(o: { time: bigint; sessionId?: string; version?: string; key: string }): Observation {
  const resource: Attributes = o.version ? { 'service.version': o.version } : {};
  return { time: o.time, resource, ...(o.sessionId ? { sessionId: o.sessionId } : {}), key: o.key, method: 'poll' };
}

/** An ISO-8601 time as ns since the epoch; undefined when it is not one (the line is then skipped). */
export function isoTimeNs(v: unknown): bigint | undefined {
  if (typeof v !== 'string') return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? BigInt(ms) * 1_000_000n : undefined;
}

/** A model call or a prompt OTLP may have brought too: the store merges it into that one (store/log/merge.ts). */
export function mergeable(ev: NormalizedEvent): NormalizedEvent {
  ev.mergeWithStored = true;
  return ev;
}

/** A tool's result text, as a store keeps it: a string, or blocks of `{type: 'text', text}`. */
export function resultText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content.flatMap((b: { type?: unknown; text?: unknown }) => (b?.type === 'text' && typeof b.text === 'string' ? [b.text] : []));
  return texts.length ? texts.join('\n') : undefined;
}

/** The result on the tool call's record (the sanitizer redacts and cuts it like any string). */
export function withResult(ev: NormalizedEvent | undefined, result: string | undefined): NormalizedEvent | undefined {
  if (ev && result !== undefined && ev.record.gen_ai?.tool?.call) ev.record.gen_ai.tool.call.result = result;
  return ev;
}

export const asObject = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
export const asText = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A file's events in the order they happened (a reader gathers them by kind). */
export function inTimeOrder(events: NormalizedEvent[]): NormalizedEvent[] {
  return events.sort((a, b) => (a.timeUnixNano < b.timeUnixNano ? -1 : a.timeUnixNano > b.timeUnixNano ? 1 : 0));
}
