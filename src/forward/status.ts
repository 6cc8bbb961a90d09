import type { ForwardHealth } from '../model/health';
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

/** One entry of `/health`'s `forward` list: its type is declared with the rest of /health (src/model/health.ts). */
export type ForwardStatus = ForwardHealth;

/** A destination's status as its worker knows it: what retention took from under it is the collector's to add. */
export type DestinationStatus = Omit<ForwardStatus, 'lostToRetention'>;
