/** The pieces both agents' generators share (month-of-use.ts): a seeded generator, code-like text, a buffered JSONL writer, the truth. */
import { closeSync, openSync, writeSync } from 'node:fs';

/** mulberry32: a small seeded generator (the bench needs the same month every run, not randomness). */
export class Rng {
  private s: number;

  constructor(seed: number) {
    this.s = seed >>> 0;
  }

  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A size with a long tail (most outputs are short, a few are whole files): median about `median`, at most `max`. */
  size(median: number, max: number): number {
    return Math.min(max, Math.round(median * Math.exp((this.next() + this.next() + this.next() - 1.5) * 2)));
  }

  hex(n: number): string {
    let s = '';
    while (s.length < n) s += Math.floor(this.next() * 4294967296).toString(16).padStart(8, '0');
    return s.slice(0, n);
  }

  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
  }
}

const WORDS = (
  'const let function return import export from await async if else for while of in new class this ' +
  'src test index config build error result value string number object array map set get path file ' +
  'line read write open close node npm run tsc lint pass fail ok warn debug info session model token ' +
  'cache input output tool call shell edit grep find ls cat echo git diff status commit branch main'
).split(' ');
const CORPUS = (() => {
  const r = new Rng(7);
  const lines: string[] = [];
  for (let i = 0; i < 4000; i++) {
    const n = r.int(2, 12);
    const indent = ' '.repeat(r.int(0, 4) * 2);
    lines.push(indent + Array.from({ length: n }, () => r.pick(WORDS)).join(r.chance(0.2) ? '.' : ' ') + (r.chance(0.3) ? ';' : ''));
  }
  return lines.join('\n');
})();

/** About `n` characters of code-like text, lines and all. */
export function text(rng: Rng, n: number): string {
  if (n <= 0) return '';
  let out = '';
  while (out.length < n) {
    const at = rng.int(0, CORPUS.length - 2000);
    out += CORPUS.slice(at, at + Math.min(2000, n - out.length));
  }
  return out;
}

/** A JSONL file written in 1 MiB chunks. */
export class JsonlWriter {
  private readonly fd: number;
  private buf: string[] = [];
  private pending = 0;
  bytes = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'w', 0o600);
  }

  line(value: unknown): void {
    const s = `${JSON.stringify(value)}\n`;
    this.buf.push(s);
    this.pending += s.length;
    if (this.pending > 1 << 20) this.flush();
  }

  private flush(): void {
    const chunk = Buffer.from(this.buf.join(''));
    writeSync(this.fd, chunk);
    this.bytes += chunk.length;
    this.buf = [];
    this.pending = 0;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** Tokens of one call, in Beacon's disjoint buckets (input without the cache; output with reasoning). */
export interface Tokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

/** Per UTC day and model (`2026-11-03\tclaude-sonnet-4-5-20250929`), what the files hold. */
export type Truth = Map<string, Tokens & { calls: number }>;

export function addTruth(truth: Truth, timeMs: number, model: string, t: Tokens): void {
  const key = `${new Date(timeMs).toISOString().slice(0, 10)}\t${model}`;
  const c = truth.get(key) ?? { calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  c.calls++;
  c.input += t.input;
  c.output += t.output;
  c.cacheRead += t.cacheRead;
  c.cacheWrite += t.cacheWrite;
  c.reasoning += t.reasoning;
  truth.set(key, c);
}

/** One session to write: when it starts, how many model calls, on which model, from where. */
export interface SessionPlan {
  id: string;
  startMs: number;
  calls: number;
  model: string;
  cwd: string;
}

