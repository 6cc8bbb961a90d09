import type { DestinationTypeName } from './registry';

/** What a destination is doing: sending/idle (healthy), retrying (temporary failures), paused (refused). */
export type LoopState = 'idle' | 'sending' | 'retrying' | 'paused';

/** The forward worker's live view of one destination. */
export interface DestinationState {
  name: string;
  type: DestinationTypeName;
  state: LoopState;
  /** the last acknowledged commit seq */
  cursor: bigint;
  /** records acknowledged since the collector started */
  forwarded: number;
  /** records the receiver acknowledged but refused for good (OTLP partial success) */
  rejected: number;
  retries: number;
  lastSuccessAt: string | null;
  lastError: { message: string; at: string } | null;
}

/**
 * One entry of `/health`'s `forward` list (the contract in BRIEF.md: name, type, lagRecords,
 * lagSeconds, lastSuccessAt, lastError), plus what doctor and the dashboard need to explain it.
 */
export interface ForwardStatus {
  name: string;
  type: DestinationTypeName;
  /** the worker's state, or `starting` / `restarting` / `failed` from its supervisor */
  state: LoopState | 'starting' | 'restarting' | 'failed';
  /** committed events not yet acknowledged by this destination */
  lagRecords: number;
  /** age of the oldest of them (its event time), 0 when none */
  lagSeconds: number;
  lastSuccessAt: string | null;
  lastError: { message: string; at: string } | null;
  cursor: string;
  forwarded: number;
  rejected: number;
  retries: number;
  /** `holding`: past the age limit, kept for this destination; `at-risk`: the size limit may prune unsent events */
  retention: 'ok' | 'holding' | 'at-risk';
  /** unsent events the size limit pruned (since the collector started) */
  lostToRetention: number;
}
