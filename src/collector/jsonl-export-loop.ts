import type { Logger } from 'pino';
import { isBeaconError } from '../model/errors';
import type { ExportHealth, HealthError } from '../model/health';
import { EventLog } from '../store/log/event-log';
import { JsonlExporter } from '../store/maintenance/jsonl-export';

export interface ExportLoop {
  /** drains what is committed, then closes the export and its read connection */
  stop(): void;
  /** for /health: exporting, or refused / failing and why */
  health(): ExportHealth;
}

export interface ExportLoopOptions {
  logPath: string;
  path: string;
  rotateBytes: number;
  archives: number;
}

const BATCH = 2000;

/**
 * The runtime.jsonl export: drains the log every 250 ms, in batches that yield to the event loop.
 *
 * A path the file checks refuse (issue 29 item 6: another user's directory, a planted symlink or
 * 0666 file) does not stop the collector: events are still stored in the log, nothing is written
 * through the path, and /health says `refused` with the one refusal message. The open is tried
 * again every tick, so the fix the message names takes effect without a restart; an export that
 * never had a line starts where the log ended when the collector started, so what was stored
 * meanwhile is exported too. A message is logged once, when it changes, not every 250 ms.
 */
export function startExportLoop(o: ExportLoopOptions, logger: Logger): ExportLoop {
  const log = EventLog.open(o.logPath, { readonly: true });
  const exporter = new JsonlExporter(log, { path: o.path, rotateBytes: o.rotateBytes, archives: o.archives });
  const fresh = log.maxSeq();
  let lastError: HealthError | null = null;
  let refused = false;
  const fail = (e: unknown) => {
    const message = (e as Error).message;
    refused = isBeaconError(e) && e.code === 'unsafe_file';
    if (refused) exporter.close(); // nothing more is written through a refused path
    if (message !== lastError?.message) {
      // The message names a path, a mode or an errno: never an event's content.
      if (refused) logger.error({ err: message, path: o.path }, 'JSONL export refused: nothing is written there; events are still stored in the log');
      else logger.error({ err: message, path: o.path }, 'JSONL export failed; retrying');
    }
    lastError = { message, at: new Date().toISOString() };
  };
  const succeed = () => {
    if (lastError) logger.info({ path: o.path }, 'JSONL export resumed');
    lastError = null;
    refused = false;
  };
  const open = (): boolean => {
    if (exporter.isOpen) return true;
    try {
      const from = exporter.open(fresh);
      logger.info({ path: o.path, from: from.toString() }, 'exporting JSONL');
      return true;
    } catch (e) {
      fail(e);
      return false;
    }
  };
  let busy = false;
  const drain = () => {
    if (busy) return;
    busy = true;
    try {
      if (!open()) return;
      const n = exporter.exportPending(BATCH);
      succeed();
      if (n === BATCH) setImmediate(drain);
    } catch (e) {
      fail(e);
    } finally {
      busy = false;
    }
  };
  open();
  const timer = setInterval(drain, 250);
  return {
    stop() {
      clearInterval(timer);
      try {
        while (open() && exporter.exportPending(BATCH) > 0);
      } catch (e) {
        fail(e);
      } finally {
        exporter.close();
        log.close();
      }
    },
    health: () => ({ path: o.path, state: lastError === null ? 'exporting' : refused ? 'refused' : 'failing', cursor: exporter.position.toString(), lastError }),
  };
}
