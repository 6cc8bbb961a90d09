import assert from 'node:assert/strict';
import { EventLog } from '../../src/store/log/event-log';
import type { RunningCollector } from './daemon';

/** Polls `probe` until `ok` holds (or fails the test with the last value). */
export async function waitFor<T>(probe: () => T | Promise<T>, ok: (v: T) => boolean, what: string, ms = 40_000): Promise<T> {
  const deadline = Date.now() + ms;
  let v = await probe();
  while (!ok(v) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    v = await probe();
  }
  assert.ok(ok(v), `${what}: ${JSON.stringify(v)}`);
  return v;
}

/** The collector's `/health` body. */
export const health = async (c: RunningCollector) => (await (await fetch(`${c.url}/health`)).json()) as { forward: any[] }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A destination whose worker reported and which has acknowledged every committed event. */
export const caughtUp = (f: { state: string; lagRecords: number }) => f.state !== 'starting' && f.state !== 'restarting' && f.lagRecords === 0;

/**
 * Waits until every destination acknowledged the log's newest commit. (`lagRecords` alone is a
 * snapshot the worker refreshes every second: it can predate the last commit.)
 */
export async function waitCaughtUp(c: RunningCollector, logPath: string, what: string, ms = 40_000): Promise<{ forward: any[] }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const newest = () => {
    const log = EventLog.open(logPath, { readonly: true });
    try {
      return Number(log.maxSeq());
    } finally {
      log.close();
    }
  };
  const r = await waitFor(async () => ({ h: await health(c), max: newest() }), ({ h, max }) => h.forward.every((f: { state: string; lagRecords: number; cursor: string }) => caughtUp(f) && Number(f.cursor) >= max), what, ms);
  return r.h;
}
