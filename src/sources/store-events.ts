import type { NormalizedEvent } from '../model/record';
import type { Attributes } from '../model/span';
import { toolCallEvent, type Agent, type Observation } from './agent-events';

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

/** A tool call a store reader has read the request of, waiting for its result. */
export interface PendingCall {
  name: string;
  args: unknown;
  time: bigint;
}

/**
 * What a reader of whole-line events (Copilot CLI's events.jsonl, Pi's session files) holds: the
 * events read and not yet handed out, and the tool calls still waiting for their result. Every
 * other line is complete when read, so events settle as they come (`settled`), and only a pending
 * call keeps a later read from resuming after it (`idle`: StoreFileReader's cursor contract).
 */
export class SettlingEvents<P extends PendingCall = PendingCall> {
  readonly pending = new Map<string, P>();
  readonly done: NormalizedEvent[] = [];

  settled(): NormalizedEvent[] {
    return inTimeOrder(this.done.splice(0));
  }

  idle(): boolean {
    return this.pending.size === 0;
  }

  /** At the file's end, a call without a result (interrupted, or the session still running): recorded as invoked, outcome unknown. */
  endPending(agent: Agent, at: (time: bigint, key: string) => Observation): NormalizedEvent[] {
    for (const [callId, use] of this.pending) {
      const ev = toolCallEvent(agent, at(use.time, `tool:${callId}`), { name: use.name, callId, args: use.args });
      if (ev) this.done.push(ev);
    }
    this.pending.clear();
    return this.settled();
  }
}
