import { BeaconError } from '../model/errors';

/**
 * Admission by bytes in flight: every export holds a share of one budget for as long as it is in
 * the collector — its body as it is read, its decompressed form, and an estimate of what decoding
 * will allocate — and gives it back when its reply is sent (or its client goes away). Counting
 * exports alone let 64 connections of 1.4 MB exports reach 584 MB.
 */
export class InFlightBytes {
  private held = 0;

  constructor(readonly capacity: number) {}

  get bytes(): number {
    return this.held;
  }

  /** One export's account. */
  open(): Reservation {
    return new Reservation(this);
  }

  /** @internal */ take(n: number, already: number): void {
    if (already + n > this.capacity) {
      // This export alone can never fit: retrying would not help.
      throw new BeaconError('payload_too_large', `the export needs about ${mib(already + n)} to decode, more than the ${mib(this.capacity)} in-flight limit (maxBytesInFlight)`);
    }
    if (this.held + n > this.capacity) {
      throw new BeaconError('overloaded', `${mib(this.held)} of exports are in flight (limit ${mib(this.capacity)}, maxBytesInFlight)`, { retryAfterSeconds: 1 });
    }
    this.held += n;
  }

  /** @internal */ give(n: number): void {
    this.held -= n;
  }
}

export class Reservation {
  private held = 0;
  private isReleased = false;

  constructor(private readonly budget: InFlightBytes) {}

  get bytes(): number {
    return this.held;
  }

  /** its bytes are back in the budget: it takes no more */
  get released(): boolean {
    return this.isReleased;
  }

  /** Takes `n` more bytes; throws `overloaded` (429) when the budget is spent, `payload_too_large` if it never could fit. */
  grow(n: number): void {
    if (this.isReleased || n <= 0) return;
    this.budget.take(n, this.held);
    this.held += n;
  }

  release(): void {
    if (this.isReleased) return;
    this.isReleased = true;
    this.budget.give(this.held);
    this.held = 0;
  }
}

function mib(n: number): string {
  return n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : `${Math.ceil(n / 1024)} KiB`;
}
