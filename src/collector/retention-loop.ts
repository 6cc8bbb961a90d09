import type { Logger } from 'pino';
import { pruneInWorker } from '../store/maintenance/retention-runner';
import type { PruneResult, RetentionPolicy } from '../store/maintenance/retention';

export interface RetentionLoop {
  /** no new pass; resolves once a pass in progress has finished */
  stop(): Promise<void>;
}

export interface RetentionLoopOptions {
  logPath: string;
  policy: RetentionPolicy;
  intervalMs: number;
  busyTimeoutMs: number;
  /** each finished pass (forwarding counts what the size limit took from its destinations) */
  onResult?: (r: PruneResult) => void;
}

/** Retention in the background: a pass a minute after start (sooner with a short interval), then every interval, each in a worker. */
export function startRetentionLoop(o: RetentionLoopOptions, logger: Logger): RetentionLoop {
  let running: Promise<void> | undefined;
  let stopped = false;
  const pass = () => {
    if (stopped || running || (o.policy.maxAgeDays === 0 && o.policy.maxBytes === 0)) return;
    running = pruneInWorker(o.logPath, o.policy, o.busyTimeoutMs)
      .then((r) => {
        if (r.deletedByAge + r.deletedBySize > 0) logger.info({ ...r }, 'retention pruned events');
        if (r.heldForForwarding > 0) logger.warn({ events: r.heldForForwarding }, 'retention keeps events past the age limit until every forward destination has received them');
        o.onResult?.(r);
      })
      .catch((e) => logger.error({ err: (e as Error).message }, 'retention failed'))
      .finally(() => (running = undefined));
  };
  const first = setTimeout(pass, Math.min(60_000, o.intervalMs));
  first.unref();
  const timer = setInterval(pass, Math.max(1000, o.intervalMs));
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
