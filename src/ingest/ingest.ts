import type { NormalizedEvent } from '../model/record';
import { toRows, type RejectedEvent } from './rows';
import type { EventSink } from './sink';

export interface IngestResult {
  inserted: number;
  /** already in the log (a retried export, a replayed hook): nothing written */
  duplicates: number;
  /** chat spans dropped because the model call they wrap is already stored */
  dropped: number;
  /** events that could not be stored, with why */
  rejected: RejectedEvent[];
}

const NOTHING = { inserted: 0, duplicates: 0, dropped: 0 };

/**
 * normalize → redact/limit → row → sink: the path every source (OTLP, hooks, stream) takes into the
 * log. Resolves once the sink has committed (or spooled) the rows; a sink failure rejects, and the
 * source answers with it (an OTLP 503, a hook's stderr).
 */
export async function ingestEvents(events: readonly NormalizedEvent[], sink: EventSink): Promise<IngestResult> {
  const { rows, rejected } = toRows(events);
  const stored = rows.length > 0 ? await sink.append(rows) : NOTHING;
  return { inserted: stored.inserted, duplicates: stored.duplicates, dropped: stored.dropped, rejected };
}
