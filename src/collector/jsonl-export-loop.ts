import type { Logger } from 'pino';
import { EventLog } from '../store/log/event-log';
import { JsonlExporter } from '../store/maintenance/jsonl-export';

export interface ExportLoop {
  /** drains what is committed, then closes the export and its read connection */
  stop(): void;
}

export interface ExportLoopOptions {
  logPath: string;
  path: string;
  rotateBytes: number;
  archives: number;
}

/** The runtime.jsonl export: drains the log every 250 ms, in batches that yield to the event loop. */
export function startExportLoop(o: ExportLoopOptions, logger: Logger): ExportLoop {
  const log = EventLog.open(o.logPath, { readonly: true });
  const exporter = new JsonlExporter(log, { path: o.path, rotateBytes: o.rotateBytes, archives: o.archives });
  const from = exporter.open();
  logger.info({ path: o.path, from: from.toString() }, 'exporting JSONL');
  let busy = false;
  const drain = () => {
    if (busy) return;
    busy = true;
    try {
      const n = exporter.exportPending(2000);
      if (n === 2000) setImmediate(drain);
    } catch (e) {
      logger.error({ err: (e as Error).message }, 'JSONL export failed; retrying');
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(drain, 250);
  return {
    stop() {
      clearInterval(timer);
      while (exporter.exportPending(2000) > 0);
      exporter.close();
      log.close();
    },
  };
}
