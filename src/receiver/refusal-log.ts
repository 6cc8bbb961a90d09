import type pino from 'pino';

/** An export is what comes to the OTLP paths; a dashboard page, a hook or a login refused is a request. */
const whatIs = (path: string) => (/^\/v1\/(traces|logs|metrics)$/.test(path) || /^\/opentelemetry\.proto\./.test(path) ? 'export' : 'request');

interface Tally {
  status: number;
  code: string;
  path: string;
  count: number;
}

/**
 * Refused exports (400, 413, 415, 429, …) at the default level, as counts: the first of each
 * kind at once (a misconfigured exporter shows up the moment it starts), then one line per kind
 * per interval, so a sender retrying a bad export every second cannot flood the log. Never a body.
 */
export class RefusalLog {
  private readonly pending = new Map<string, Tally>();
  private readonly seen = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly logger: pino.Logger, private readonly intervalMs = 60_000) {}

  note(status: number, code: string, requestPath: string): void {
    // Paths come from the sender: past a few hundred kinds, the rest are counted together.
    const path = this.seen.size < 256 ? requestPath : '(other)';
    const key = `${status} ${code} ${path}`;
    if (!this.seen.has(key)) {
      this.seen.add(key);
      this.logger.info({ status, code, path, count: 1 }, `${whatIs(path)} refused`);
      return;
    }
    const t = this.pending.get(key);
    if (t) t.count++;
    else this.pending.set(key, { status, code, path, count: 1 });
    this.timer ??= setTimeout(() => this.flush(), this.intervalMs).unref();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const t of this.pending.values()) this.logger.info({ ...t, seconds: Math.round(this.intervalMs / 1000) }, `${whatIs(t.path)}s refused`);
    this.pending.clear();
  }
}
