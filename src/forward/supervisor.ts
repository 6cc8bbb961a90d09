import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { PruneResult } from '../store/maintenance/retention';
import { backoffMs } from './retry';
import type { Secrets } from './destination';
import { destinationType, type ForwardDestination } from './registry';
import type { DestinationStatus, ForwardStatus } from './status';
import type { ForwardWorkerInit, FromForwardWorker, ToForwardWorker } from './forward-worker';

export interface ForwardingOptions {
  logPath: string;
  busyTimeoutMs: number;
  destinations: readonly ForwardDestination[];
  /** the collector's environment: `${env:NAME}` header values come from it */
  env: NodeJS.ProcessEnv;
  retention: { maxAgeDays: number; maxBytes: number };
  logger: Logger;
  statusIntervalMs?: number;
}

export interface Forwarding {
  /** one entry per destination, for `/health` (`forward: [...]`), doctor and the dashboard */
  status(): ForwardStatus[];
  /** a retention pass finished: unsent events it pruned are counted against their destinations */
  noteRetention(result: PruneResult): void;
  /** stops after the attempts in flight, so their acknowledgements are recorded */
  stop(): Promise<void>;
}

/**
 * Runs forwarding in a supervised worker thread: started with the collector, restarted with a
 * backoff if it dies, stopped with the collector. Headers are resolved here, so a missing
 * `${env:NAME}` fails the collector's start instead of every send.
 */
export function startForwarding(options: ForwardingOptions): Forwarding {
  const { logger } = options;
  const secrets: Record<string, Secrets> = {};
  for (const d of options.destinations) secrets[d.name] = destinationType(d).secrets?.(d, options.env) ?? {};
  const init: ForwardWorkerInit = {
    logPath: options.logPath,
    busyTimeoutMs: options.busyTimeoutMs,
    destinations: [...options.destinations],
    secrets,
    retention: options.retention,
    statusIntervalMs: options.statusIntervalMs ?? 1000,
  };
  const lost = new Map<string, number>();
  let last = new Map<string, DestinationStatus>();
  let supervisor: { state: 'starting' | 'restarting' | 'failed' | 'running'; error: { message: string; at: string } | null } = { state: 'starting', error: null };
  let worker: Worker | undefined;
  let stopping = false;
  let restarts = 0;
  let restartTimer: NodeJS.Timeout | undefined;
  const warnedAtRisk = new Set<string>();

  const spawn = () => {
    const w = new Worker(join(__dirname, `forward-worker${extname(__filename)}`), { workerData: init });
    worker = w;
    w.on('message', (m: FromForwardWorker) => {
      if (m.type !== 'status') return;
      supervisor = { state: 'running', error: supervisor.error };
      logTransitions(logger, last, m.destinations, warnedAtRisk);
      last = new Map(m.destinations.map((d) => [d.name, d]));
    });
    w.once('error', (e) => {
      supervisor = { state: 'restarting', error: { message: `forward worker failed: ${e.message}`, at: new Date().toISOString() } };
      logger.error({ err: e.message, restarts }, 'forward worker failed; restarting');
    });
    w.once('exit', () => {
      if (worker === w) worker = undefined;
      if (stopping) return;
      if (supervisor.state !== 'restarting') supervisor = { state: 'restarting', error: supervisor.error ?? { message: 'forward worker exited', at: new Date().toISOString() } };
      restartTimer = setTimeout(spawn, backoffMs(restarts++));
    });
  };
  spawn();
  logger.info({ destinations: options.destinations.map((d) => ({ name: d.name, type: d.type })) }, 'forwarding');

  return {
    status() {
      return options.destinations.map((d) => {
        const s = last.get(d.name);
        const base: ForwardStatus = s
          ? { ...s, lostToRetention: lost.get(d.name) ?? 0 }
          : {
              name: d.name, type: d.type, state: 'starting', lagRecords: 0, lagSeconds: 0, lastSuccessAt: null, lastError: null,
              cursor: '0', forwarded: 0, rejected: 0, retries: 0, retention: 'ok', lostToRetention: lost.get(d.name) ?? 0,
            };
        if (supervisor.state !== 'running') return { ...base, state: supervisor.state, lastError: supervisor.error ?? base.lastError };
        return base;
      });
    },
    noteRetention(result) {
      for (const [name, n] of Object.entries(result.unforwardedDeleted ?? {})) {
        if (n <= 0) continue;
        lost.set(name, (lost.get(name) ?? 0) + n);
        logger.error({ destination: name, events: n }, 'retention pruned events this forward destination had not received (the size limit)');
      }
    },
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const w = worker;
      if (!w) return;
      await stopWorker(w, Math.max(...options.destinations.map((d) => d.timeoutMs), 1000) + 2000);
    },
  };
}


/** What is worth a log line in a status update: a destination falling behind retention, refusing, or accepting again. */
function logTransitions(logger: Logger, last: ReadonlyMap<string, DestinationStatus>, destinations: readonly DestinationStatus[], warnedAtRisk: Set<string>): void {
  for (const d of destinations) {
    const prev = last.get(d.name);
    if (d.retention === 'at-risk' && !warnedAtRisk.has(d.name)) {
      warnedAtRisk.add(d.name);
      logger.warn({ destination: d.name, lagRecords: d.lagRecords }, 'forward destination is behind and the log is near its size limit: retention may prune events it has not received');
    } else if (d.retention !== 'at-risk') warnedAtRisk.delete(d.name);
    if (prev && prev.state !== d.state && (d.state === 'paused' || d.state === 'retrying')) {
      logger.warn({ destination: d.name, state: d.state, err: d.lastError?.message }, 'forward destination is not accepting events');
    } else if (prev && prev.state !== d.state && (prev.state === 'paused' || prev.state === 'retrying')) {
      logger.info({ destination: d.name, state: d.state }, 'forward destination accepting events again');
    }
  }
}

/** Asks the worker to finish its batch and stop; terminates it after `graceMs` (a destination stuck past its timeout). */
function stopWorker(w: Worker, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => void w.terminate().then(() => resolve()), graceMs);
    w.on('message', (m: FromForwardWorker) => {
      if (m.type === 'stopped') {
        clearTimeout(timer);
        void w.terminate().then(() => resolve());
      }
    });
    w.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    w.postMessage({ type: 'stop' } satisfies ToForwardWorker);
  });
}
