import type { HookFailureHealth } from '../model/health';
import type { EventRow, EventSink, QueuedEventSink } from '../ingest/sink';
import type { HealthSource } from './health';
import { formatTimestamp } from '../model/time';
import { HOOK_FAILED } from '../sources/hook-adapter';

/**
 * Counts the `hook.failed` records (Beacon's own hook failed inside goose, or a tool call ran
 * unchecked) that reach the log through this collector, for `/health`. The hook fallback writes
 * without the collector, so doctor counts from the log itself; this is what the running collector saw.
 */
export class HookFailureWatch {
  private count = 0;
  private lastNs: bigint | null = null;

  private note(rows: readonly EventRow[]): void {
    for (const r of rows) {
      if (r.action !== HOOK_FAILED) continue;
      this.count++;
      if (this.lastNs === null || r.tsNs > this.lastNs) this.lastNs = r.tsNs;
    }
  }

  /** The same sink, noting what it commits (after the commit: a refused append counts nothing). */
  watch(sink: EventSink): EventSink {
    return { append: (rows) => this.append(sink, rows) };
  }

  /** The writer thread as the receiver's sink: its queue depth and health still read through. */
  watchQueued(sink: QueuedEventSink & HealthSource): QueuedEventSink & HealthSource {
    return {
      append: (rows) => this.append(sink, rows),
      get pending() {
        return sink.pending;
      },
      path: sink.path,
      health: () => sink.health(),
    };
  }

  private async append(sink: EventSink, rows: EventRow[]) {
    const result = await sink.append(rows);
    this.note(rows);
    return result;
  }

  health(): HookFailureHealth {
    return { count: this.count, last: this.lastNs === null ? null : formatTimestamp(this.lastNs) };
  }
}
