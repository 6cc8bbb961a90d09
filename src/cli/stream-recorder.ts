import { DirectLogSink, isLockTrouble } from '../ingest/direct-sink';
import type { EventRow } from '../ingest/sink';

const BATCH = 200;
/** The log's lock is waited for at most this long per batch; beyond it the batch is spooled (--tee's passthrough keeps flowing). */
const STREAM_BUSY_TIMEOUT_MS = 500;

/**
 * The stream adapter's writer: rows batched and appended one batch after another, in order; a busy
 * log spools. A log that cannot be used at all is reported once and the stream keeps flowing (a
 * pipeline must not break); `failed` then makes the exit code 1.
 */
export class StreamRecorder {
  failed = false;
  private rows: EventRow[] = [];
  private flushing: Promise<void> = Promise.resolve();

  private constructor(private readonly sink: DirectLogSink | undefined, private readonly stderr: (s: string) => void) {}

  static open(path: string, stderr: (s: string) => void): StreamRecorder {
    const sink = new DirectLogSink(path, { busyTimeoutMs: STREAM_BUSY_TIMEOUT_MS });
    try {
      sink.open();
    } catch (e) {
      // A busy log is fine (rows are spooled until it is free); anything else means no recording.
      if (!isLockTrouble(e)) {
        stderr(`beacon stream: not recording: ${(e as Error).message}\n`);
        const recorder = new StreamRecorder(undefined, stderr);
        recorder.failed = true;
        return recorder;
      }
    }
    return new StreamRecorder(sink, stderr);
  }

  add(row: EventRow): void {
    if (this.sink) this.rows.push(row);
  }

  flushIfFull(): void {
    if (this.rows.length >= BATCH) void this.flush();
  }

  /** Hands the rows gathered so far over, after the batches before them. */
  flush(): Promise<void> {
    if (!this.sink || this.rows.length === 0) return this.flushing;
    const batch = this.rows;
    const sink = this.sink;
    this.rows = [];
    this.flushing = this.flushing.then(async () => {
      try {
        await sink.append(batch);
      } catch (e) {
        this.stderr(`beacon stream: ${batch.length} events not recorded: ${(e as Error).message}\n`);
        this.failed = true;
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    await this.flush();
    this.sink?.close();
  }
}

/**
 * stdout as a pipeline stage: a closed pipe (`| head`) stops the printing, never the recording, and
 * stdout's backpressure holds the input, so a slow reader slows the adapter down instead of growing
 * its memory.
 */
export class PipeOutput {
  open = true;
  private full = false;

  constructor(private readonly stdout: NodeJS.WritableStream) {
    stdout.on('error', () => {
      this.open = false;
    });
  }

  write(chunk: string | Buffer): void {
    if (this.open && !this.stdout.write(chunk)) this.full = true;
  }

  /** Resolves once what was written has drained (or the pipe closed). */
  async drained(): Promise<void> {
    if (!this.full) return;
    this.full = false;
    if (!this.open) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        for (const ev of ['drain', 'close', 'error']) this.stdout.removeListener(ev, done);
        resolve();
      };
      for (const ev of ['drain', 'close', 'error']) this.stdout.once(ev, done);
    });
  }
}
