/** The bench's measuring tools, once: rates, medians, a process's memory. */
import { readFileSync } from 'node:fs';

/** Items per second of `fn` (each call, given its index, returns its item count) over `seconds`, after a 300 ms warm-up. */
export function rate(seconds: number, fn: (i: number) => number): number {
  let items = 0;
  const warm = performance.now() + 300;
  let i = 0;
  while (performance.now() < warm) fn(i++);
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) items += fn(i++);
  return items / ((performance.now() - start) / 1000);
}

export const median = (xs: readonly number[]): number => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A process's resident memory now (VmRSS) and at its peak (VmHWM), in MB, from /proc. */
export function memoryMb(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}
