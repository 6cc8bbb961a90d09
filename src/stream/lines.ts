import { isUtf8 } from 'node:buffer';

/** One line of input; `truncated` when it exceeded the limit and only its head was kept. */
export interface Line {
  text: string;
  truncated: boolean;
  bytes: number;
  /** the line's bytes are not UTF-8 (its text then holds U+FFFD for them): a reader that must not guess skips it */
  invalidUtf8?: true;
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
    let line: Line;
    if (this.overflow) line = { text: this.head, truncated: true, bytes: this.size };
    else {
      const bytes = Buffer.concat(this.parts, this.size);
      line = { text: bytes.toString('utf8').replace(/\r$/, ''), truncated: false, bytes: this.size };
      if (!isUtf8(bytes)) line.invalidUtf8 = true;
    }
    this.parts = [];
    this.size = 0;
    this.overflow = false;
    this.head = '';
    return line;
  }
}
