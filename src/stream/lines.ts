/** One line of input; `truncated` when it exceeded the limit and only its head was kept. */
export interface Line {
  text: string;
  truncated: boolean;
  bytes: number;
}

/**
 * Splits a byte stream into lines with bounded memory: a line longer than `maxLineBytes` keeps its
 * first `keepBytes` and the rest is skipped up to the next newline. A last line without a newline
 * is still a line.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private overflow = false;
  private head = '';

  constructor(
    private readonly maxLineBytes = 8 * 1024 * 1024,
    private readonly keepBytes = 4096,
  ) {}

  push(chunk: Buffer): Line[] {
    const out: Line[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      this.append(chunk.subarray(start, nl));
      out.push(this.take());
      start = nl + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
    return out;
  }

  end(): Line[] {
    return this.size > 0 || this.overflow ? [this.take()] : [];
  }

  private append(b: Buffer): void {
    if (this.overflow) {
      this.size += b.length;
      return;
    }
    this.parts.push(b);
    this.size += b.length;
    if (this.size > this.maxLineBytes) {
      this.head = Buffer.concat(this.parts).subarray(0, this.keepBytes).toString('utf8');
      this.parts = [];
      this.overflow = true;
    }
  }

  private take(): Line {
    const line: Line = this.overflow
      ? { text: this.head, truncated: true, bytes: this.size }
      : { text: Buffer.concat(this.parts, this.size).toString('utf8').replace(/\r$/, ''), truncated: false, bytes: this.size };
    this.parts = [];
    this.size = 0;
    this.overflow = false;
    this.head = '';
    return line;
  }
}
