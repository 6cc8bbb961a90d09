import { readFileSync } from 'node:fs';

/** A length-delimited protobuf field, written by hand (for bodies no encoder would produce). */
export function ld(field: number, bytes: Buffer): Buffer {
  const len: number[] = [];
  let n = bytes.length;
  do {
    len.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...len]), bytes]);
}

/** ExportTraceServiceRequest holding `n` empty spans (2 bytes each): the span-count bomb. */
export function emptySpansBody(n: number): Buffer {
  const spans = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) spans[2 * i] = 0x12;
  return ld(1, ld(2, spans));
}

/** An AnyValue nested `depth` kvlists deep, as protobuf bytes and as OTLP/JSON text. */
export function deepKvlist(depth: number): { proto: Buffer; json: string } {
  let proto = ld(1, Buffer.from('x')); // stringValue "x"
  let json = '{"stringValue":"x"}';
  for (let i = 0; i < depth; i++) {
    proto = ld(6, ld(1, Buffer.concat([ld(1, Buffer.from('k')), ld(2, proto)])));
    json = `{"kvlistValue":{"values":[{"key":"k","value":${json}}]}}`;
  }
  return { proto, json };
}

/** VmRSS / VmHWM of a process, in MB. */
export function rssMb(pid: number): { rss: number; hwm: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}
