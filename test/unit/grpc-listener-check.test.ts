/**
 * doctor's OTLP/gRPC line for an agent exporting over gRPC: when the collector's gRPC could not
 * listen and is trying again by itself (/health `grpc.retrying`), the fix is to free the port, not
 * to restart the collector (issue 33: "/health says gRPC is retrying, doctor does not").
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grpcListenerCheck } from '../../src/setup/agent-doctor';
import { AGENT_SPECS } from '../../src/setup/agents/registry';

const codex = AGENT_SPECS.find((s) => s.id === 'codex')!;
const target = { protocol: 'grpc' as const, base: 'http://127.0.0.1:4317', port: 4317 };
const down = { state: 'down' as const, address: null, error: 'port 4317 is in use' };

describe("doctor's OTLP/gRPC line", () => {
  it('down and retrying: says it tries again, and freeing the port is the whole fix', () => {
    const c = grpcListenerCheck(codex, target, { ...down, retrying: true });
    assert.equal(c.status, 'fail');
    assert.match(c.message, /is down: port 4317 is in use \(it tries again every few seconds\)$/);
    assert.equal(c.fix, 'free port 4317: the collector then listens on it by itself');
  });

  it('down and not retrying (an older collector): free the port, then restart', () => {
    const c = grpcListenerCheck(codex, target, down);
    assert.doesNotMatch(c.message, /tries again/);
    assert.equal(c.fix, 'free port 4317, then restart the collector');
  });

  it('listening on the agent\'s port: ok', () => {
    assert.equal(grpcListenerCheck(codex, target, { state: 'listening', address: '127.0.0.1:4317', exports: 3 }).status, 'ok');
  });
});
