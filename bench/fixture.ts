import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { gooseDefaultLoopTurn } from '../test/helpers/goose-spans';
import { GOOSE_RESOURCE, kvs, type SpanSpec } from '../test/helpers/otlp-json';
import { repoRoot } from '../test/helpers/paths';

const root = protobuf.loadSync(join(repoRoot(), 'proto', 'otlp.proto'));
const Request = root.lookupType('beacon.otlp.ExportTraceServiceRequest');

/**
 * A realistic goose export: `spans` spans cut from consecutive default-loop turns (chat spans with
 * cache usage and reasoning, shell/edit/todo tool spans, reply/reply_stream/execute_hook spans),
 * protobuf-encoded as goose sends it, its turns 20 s apart from `startNs`. `idOffsets` locate every trace and span id in the bytes, so a
 * load generator can stamp each copy with fresh ids (a retried export would be cheaper to store).
 */
export function gooseExportTemplate(spans = 100, startNs = 1787301000000000000n): { body: Buffer; idOffsets: number[]; genAiSpans: number } {
  const all: SpanSpec[] = [];
  let turn = 0;
  while (all.length < spans) all.push(...gooseDefaultLoopTurn({ sessionId: `bench_${turn++}`, start: startNs + BigInt(turn) * 20_000_000_000n }).spans);
  const chosen = all.slice(0, spans);
  const msg = Request.fromObject({
    resourceSpans: [
      {
        resource: { attributes: kvs(GOOSE_RESOURCE) },
        scopeSpans: [
          {
            scope: { name: 'goose' },
            spans: chosen.map((s) => ({
              traceId: Buffer.from(s.traceId, 'hex'),
              spanId: Buffer.from(s.spanId, 'hex'),
              parentSpanId: s.parentSpanId ? Buffer.from(s.parentSpanId, 'hex') : undefined,
              name: s.name,
              kind: 1,
              startTimeUnixNano: s.start.toString(),
              endTimeUnixNano: s.end.toString(),
              attributes: kvs(s.attributes),
              status: {},
            })),
          },
        ],
      },
    ],
  });
  const body = Buffer.from(Request.encode(msg).finish());
  const idOffsets: number[] = [];
  for (const s of chosen) {
    for (const hex of [s.traceId, s.spanId, s.parentSpanId]) {
      if (!hex) continue;
      const needle = Buffer.from(hex, 'hex');
      let at = body.indexOf(needle);
      while (at >= 0) {
        idOffsets.push(at);
        at = body.indexOf(needle, at + 1);
      }
    }
  }
  const genAiSpans = chosen.filter((s) => ['chat', 'execute_tool'].includes(String(s.attributes['gen_ai.operation.name'])) && s.attributes['gen_ai.tool.name'] !== 'todo__todo_write').length;
  return { body, idOffsets: [...new Set(idOffsets)], genAiSpans };
}

/** A copy of the template whose ids all carry `n` in their first 4 bytes: unique spans per copy. */
export function stampIds(template: Buffer, idOffsets: number[], n: number): Buffer {
  const b = Buffer.from(template);
  for (const at of idOffsets) b.writeUInt32BE(n >>> 0, at);
  return b;
}

/**
 * A private folder for logs kept between bench runs (building a million events takes a minute):
 * Beacon refuses a log in a directory other users may write (issue 22), so never tmpdir() itself.
 */
export function benchCacheDir(): string {
  const dir = join(tmpdir(), `beacon-bench-${process.getuid?.() ?? 'user'}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
