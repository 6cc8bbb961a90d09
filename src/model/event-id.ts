import { createHash, randomUUID } from 'node:crypto';

/** Namespace of Beacon's deterministic event ids (the Go Beacon's, so ids agree across implementations). */
const NAMESPACE = Buffer.from('1f4b2c8e6d3a5a7c9b613f0d5e8c2a14', 'hex');

/** RFC 4122 UUID version 5 (SHA-1, name-based). */
export function uuidV5(name: string): string {
  const h = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** An OTLP span is one event: a retried export carries the same trace and span id, so it inserts nothing. */
export function spanEventId(traceId: string, spanId: string): string {
  return uuidV5(`otlp\u0000${traceId}\u0000${spanId}`);
}

/** A tool call observed by a hook: the same call replayed (same session, action and call id) is the same event. */
export function callEventId(sessionId: string, action: string, callId: string): string {
  return uuidV5(`call\u0000${sessionId}\u0000${action.trim().toLowerCase()}\u0000${callId}`);
}

/** Content-addressed id, for sources that give an event no identity but repeat it verbatim on retry. */
export function contentEventId(canonical: string): string {
  return uuidV5(`content\u0000${canonical}`);
}

/**
 * A hook invocation's event, by the launcher's per-invocation key: the fast path and the fallback
 * recording the same invocation agree on it; two invocations never do.
 */
export function invocationEventId(key: string, action: string): string {
  return uuidV5(`hook-invocation\u0000${key}\u0000${action.trim().toLowerCase()}`);
}

/** A prompt, a session start or a stop has no identity: the same prompt sent twice is two events. */
export function freshEventId(): string {
  return randomUUID();
}
