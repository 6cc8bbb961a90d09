/** What one attempt to deliver a batch came to; the destination loop acts on it. */
export type Outcome =
  /** acknowledged: the cursor moves past the batch. `rejected` records the receiver refused for good (OTLP partial success). */
  | { kind: 'ack'; rejected: number; message: string }
  /** temporary (429/502/503/504, network, timeout): the same batch again after a backoff */
  | { kind: 'retry'; message: string; retryAfterMs?: number }
  /** 413: the batch is too large for the receiver; it is split */
  | { kind: 'too_large'; message: string }
  /** any other refusal: the destination pauses and says why */
  | { kind: 'refused'; message: string };
