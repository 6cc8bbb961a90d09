import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BeaconError } from '../model/errors';
import type { QueryAnswer, QueryRequest, QueryThreadInit } from './query-protocol';

type Ok = Extract<QueryAnswer, { ok: true }>;
// A distributive Omit: each kind of request keeps its own fields.
type Request = QueryRequest extends infer R ? (R extends QueryRequest ? Omit<R, 'id'> : never) : never;

/**
 * The main thread's side of the dashboard's query thread (query-worker.ts): started by the first
 * dashboard request, retired after `idleMs` without one (an idle collector holds no dashboard
 * thread nor its pages' modules), started again by the next. A thread that dies
 * fails the requests it held (500) and the next request starts a new one.
 */
export class QueryThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(a: Ok): void; reject(e: Error): void }>();
  private idleTimer?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly init: QueryThreadInit, private readonly idleMs = 15 * 60_000) {}

  /** Sends one request and resolves with its answer; a typed error from the thread is rethrown as it was. */
  ask(req: Request): Promise<Ok> {
    if (this.closed) return Promise.reject(new BeaconError('unavailable', 'the collector is shutting down', { retryAfterSeconds: 1 }));
    const id = this.nextId++;
    const answer = new Promise<Ok>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    clearTimeout(this.idleTimer);
    this.start().postMessage({ ...req, id } as QueryRequest);
    return answer;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    const w = this.worker;
    this.worker = undefined;
    for (const waiter of this.waiting.values()) waiter.reject(new BeaconError('unavailable', 'the collector is shutting down', { retryAfterSeconds: 1 }));
    this.waiting.clear();
    if (w) await w.terminate();
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(join(__dirname, `query-worker${extname(__filename)}`), { workerData: this.init });
    w.on('message', (a: QueryAnswer) => {
      const waiter = this.waiting.get(a.id);
      this.waiting.delete(a.id);
      if (a.ok) waiter?.resolve(a);
      else waiter?.reject(new BeaconError(a.error.code, a.error.message));
      if (this.waiting.size === 0) this.retireLater(w);
    });
    const fail = (e: Error) => {
      if (this.worker !== w) return;
      this.worker = undefined;
      for (const waiter of this.waiting.values()) waiter.reject(new BeaconError('internal', `the dashboard's query thread failed: ${e.message}`, { cause: e }));
      this.waiting.clear();
    };
    w.on('error', fail);
    w.on('exit', (code) => fail(new Error(`exited with code ${code}`)));
    this.worker = w;
    return w;
  }

  private retireLater(w: Worker): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.worker !== w || this.waiting.size > 0) return;
      this.worker = undefined;
      void w.terminate();
    }, this.idleMs);
    this.idleTimer.unref();
  }
}
