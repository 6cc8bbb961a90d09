import type { BeaconErrorCode } from '../model/errors';
import type { HealthReport } from '../model/health';
import type { Query } from './context';

/** What the dashboard's query thread is started with (query-thread.ts → query-worker.ts). */
export interface QueryThreadInit {
  logPath: string;
  retention: { maxAgeDays: number; maxBytes: number };
  /** where the pricing overrides file is looked up */
  env: NodeJS.ProcessEnv;
}

/** One request to the query thread; `id` pairs it with its answer. */
export type QueryRequest = { id: number } & (
  | { kind: 'page'; path: string; query: Query; health: Partial<HealthReport> }
  | { kind: 'not-found'; path: string }
  | { kind: 'changes'; query: Query }
  | { kind: 'jsonl-open'; query: Query }
  | { kind: 'jsonl-next'; stream: number }
  | { kind: 'jsonl-close'; stream: number }
);

/** A page (status + HTML), the change poll's body, a chunk of the JSONL download, or a typed error. */
export type QueryAnswer = { id: number } & (
  | { ok: true; status?: number; html?: string; json?: { seq: string; newEvents: number }; stream?: number; chunk?: string | null }
  | { ok: false; error: { code: BeaconErrorCode; message: string } }
);
