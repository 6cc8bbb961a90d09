/** `beacon events --follow` latency: from a commit in another process to the line on the follower's stdout. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { EventLog } from '../src/store/log/event-log';
import type { EventRow } from '../src/store/log/row';
import { BEACON_BIN, tempDir } from '../test/helpers/paths';

export async function benchFollow(samples = 40): Promise<Record<string, number>> {
  const path = join(tempDir('bench-follow-'), 'events.db');
  const log = EventLog.open(path);
  const child = spawn(process.execPath, [BEACON_BIN, 'events', '--follow', '--json', '--log', path], { stdio: ['ignore', 'pipe', 'inherit'] });
  const seen = new Map<string, number>();
  createInterface({ input: child.stdout! }).on('line', (l) => seen.set(JSON.parse(l).id, performance.now()));
  await new Promise((r) => setTimeout(r, 1000));
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const id = `follow-${i}`;
    const row: EventRow = { id, tsNs: BigInt(Date.now()) * 1_000_000n, harness: 'goose', method: 'hook', action: 'tool.invoked', sessionId: 's', traceId: null, spanId: null, parentSpanId: null, toolCallId: null, model: null, provider: null, inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheCreationTokens: null, reasoningTokens: null, costUsd: null, record: JSON.stringify({ id }), dropIfChatChildStored: false };
    const t = performance.now();
    log.append([row]);
    while (!seen.has(id)) await new Promise((r) => setTimeout(r, 2));
    latencies.push(seen.get(id)! - t);
    await new Promise((r) => setTimeout(r, 37)); // not in phase with the follower's poll
  }
  child.kill('SIGINT');
  log.close();
  latencies.sort((a, b) => a - b);
  const p50 = latencies[Math.floor(samples / 2)]!;
  const p99 = latencies[samples - 1]!;
  console.log(`events --follow: commit → printed line p50 ${p50.toFixed(1)} ms, max ${p99.toFixed(1)} ms (${samples} commits; the follower polls every 100 ms)`);
  return { followP50Ms: p50, followMaxMs: p99 };
}
