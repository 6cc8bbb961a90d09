import type { Logger } from 'pino';
import type { EventSink } from '../ingest/sink';
import { BadSegment, readSegment, removeSegment, setAside, spoolSegments } from '../ingest/spool';
import type { SpoolHealth } from '../model/health';

export interface SpoolLoop {
  /** no new pass; resolves once a pass in progress has committed what it read */
  stop(): Promise<void>;
  /** segments refused since the start, for /health */
  health(): SpoolHealth;
}

/**
 * Bad segments that could not be renamed, remembered so that each is logged once and never read
 * again: past this many (a spool flooded by someone who may write it), the rest are logged in one
 * line and read again each pass, so memory stays bounded either way.
 */
const MAX_UNMOVABLE = 10_000;

/**
 * The collector commits what hooks and the stream adapter spooled while the log was locked: at
 * start, then every `intervalMs`, through the writer thread like any export. A segment is removed
 * only after its rows are committed; if a hook drains the same segment meanwhile, the ids make the
 * second commit a no-op. An idle collector with an empty spool pays one readdir per pass.
 *
 * A bad segment (not ours, not a regular file, not rows) is renamed `*.bad` and logged once. One
 * that cannot be renamed either (issue 29 item 10b: it was logged again every second, without end)
 * is logged once, counted on /health as `spool.unmovable`, skipped from then on, and its rename
 * retried quietly each pass.
 */
export function startSpoolLoop(o: { logPath: string; sink: EventSink; intervalMs?: number }, logger: Logger): SpoolLoop {
  let running: Promise<void> | undefined;
  let stopped = false;
  let setAsideCount = 0;
  const unmovable = new Set<string>();
  let overflowLogged = false;
  const refuse = (segment: string, e: BadSegment) => {
    if (setAside(segment)) {
      setAsideCount++;
      logger.error({ err: e.message }, 'spool segment set aside');
    } else if (unmovable.size < MAX_UNMOVABLE) {
      unmovable.add(segment);
      logger.error({ err: e.message, segment }, 'spool segment refused and cannot be set aside (renamed *.bad): skipped from now on; move it away by hand');
    } else if (!overflowLogged) {
      overflowLogged = true;
      logger.error({ unmovable: unmovable.size }, 'more spool segments refused and cannot be set aside: no longer logged one by one');
    }
  };
  const retryUnmovable = (listed: readonly string[]) => {
    const present = new Set(listed);
    for (const segment of unmovable) {
      if (!present.has(segment)) unmovable.delete(segment); // removed by hand
      else if (setAside(segment)) {
        unmovable.delete(segment);
        setAsideCount++;
      }
    }
  };
  const pass = async () => {
    let rows = 0;
    let segments = 0;
    const listed = spoolSegments(o.logPath);
    if (unmovable.size > 0) retryUnmovable(listed);
    for (const segment of listed) {
      if (stopped) break;
      if (unmovable.has(segment)) continue;
      try {
        const r = readSegment(segment);
        await o.sink.append(r);
        removeSegment(segment);
        rows += r.length;
        segments++;
      } catch (e) {
        if (e instanceof BadSegment) refuse(segment, e);
        else if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
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
    health: () => ({ setAside: setAsideCount, unmovable: unmovable.size }),
  };
}
