import type { Logger } from 'pino';
import type { EventSink } from '../ingest/sink';
import { BadSegment, readSegment, removeSegment, setAside, spoolSegments } from '../ingest/spool';

export interface SpoolLoop {
  /** no new pass; resolves once a pass in progress has committed what it read */
  stop(): Promise<void>;
}

/**
 * The collector commits what hooks and the stream adapter spooled while the log was locked: at
 * start, then every `intervalMs`, through the writer thread like any export. A segment is removed
 * only after its rows are committed; if a hook drains the same segment meanwhile, the ids make the
 * second commit a no-op. An idle collector with an empty spool pays one readdir per pass.
 */
export function startSpoolLoop(o: { logPath: string; sink: EventSink; intervalMs?: number }, logger: Logger): SpoolLoop {
  let running: Promise<void> | undefined;
  let stopped = false;
  const pass = async () => {
    let rows = 0;
    let segments = 0;
    for (const segment of spoolSegments(o.logPath)) {
      if (stopped) break;
      try {
        const r = readSegment(segment);
        await o.sink.append(r);
        removeSegment(segment);
        rows += r.length;
        segments++;
      } catch (e) {
        if (e instanceof BadSegment) {
          setAside(segment);
          logger.error({ err: e.message }, 'spool segment set aside');
        } else if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
          // The writer is unavailable (it answers 503 to exports meanwhile): try again next pass.
          logger.warn({ err: (e as Error).message }, 'spool not ingested; retrying');
          break;
        }
      }
    }
    if (segments > 0) logger.info({ segments, rows }, 'spool ingested');
  };
  const tick = () => {
    if (stopped || running) return;
    running = pass().finally(() => (running = undefined));
  };
  tick();
  const timer = setInterval(tick, o.intervalMs ?? 1000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
