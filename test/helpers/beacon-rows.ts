import { randomBytes } from 'node:crypto';
import type { EventRow } from '../../src/store/log/row';

const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'];

/** Stored events as a hook would write them: full Beacon records with hostile strings in them. */
export function beaconRows(n: number, prefix: string, tsNs: (i: number) => bigint = () => BigInt(Date.now()) * 1_000_000n): EventRow[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `${prefix}-${i}`;
    const traceId = randomBytes(16).toString('hex');
    const spanId = randomBytes(8).toString('hex');
    const record = {
      timestamp: new Date(Number(tsNs(i) / 1_000_000n)).toISOString(),
      vendor: 'beacon', product: 'endpoint-agent', schema_version: '1.0',
      event: { kind: 'agent_runtime', action: 'command.executed', category: 'process', id },
      severity: SEVERITIES[i % SEVERITIES.length],
      endpoint: { hostname: 'laptop-7', os: 'linux' },
      harness: { name: 'goose', collection_method: 'hook' },
      session: { id: `${prefix}-session "]\\` },
      trace: { id: traceId, span_id: spanId },
      command: { command: `ls -la "quoted" ]bracket\\ ünïcode ${i}\nsecond line`, exit_code: 0 },
      gen_ai: { usage: { input_tokens: 10 + i } },
    };
    return {
      id, tsNs: tsNs(i), harness: 'goose', method: 'hook', action: 'command.executed', sessionId: record.session.id, traceId, spanId, parentSpanId: null,
      toolCallId: null, model: null, provider: null, inputTokens: 10 + i, outputTokens: null, cacheReadTokens: null, cacheCreationTokens: null, reasoningTokens: null,
      costUsd: null, record: JSON.stringify(record), dropIfChatChildStored: false,
    };
  });
}
