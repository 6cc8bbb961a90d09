/**
 * The collector's parts, started one after another and stopped in reverse, by this one mechanism:
 * a part that fails to start stops every part started before it (last first) and the start fails
 * with its error; a stop does the same for all. The start order is therefore chosen so that its
 * reverse is the order a stop needs (service.ts says which).
 */
export class Lifecycle {
  private readonly started: { name: string; stop: () => unknown }[] = [];
  private stopping: Promise<void> | undefined;

  /** Starts one part; `stop` is how it is stopped later (or now, if a later part fails to start). */
  async start<T>(name: string, start: () => T | Promise<T>, stop: (part: T) => unknown): Promise<T> {
    let part: T;
    try {
      part = await start();
    } catch (e) {
      await this.stop();
      throw e;
    }
    this.started.push({ name, stop: () => stop(part) });
    return part;
  }

  /**
   * Stops every started part, last started first. Each is stopped even if one before it failed to;
   * the first failure is thrown at the end. Idempotent: a second call waits for the first.
   */
  stop(): Promise<void> {
    return (this.stopping ??= this.stopAll());
  }

  private async stopAll(): Promise<void> {
    // wrapped, so a part that throws `undefined` still counts as a failure
    let failure: { error: unknown } | undefined;
    for (let part = this.started.pop(); part; part = this.started.pop()) {
      try {
        await part.stop();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }
}
