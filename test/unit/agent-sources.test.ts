import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { NormalizedEvent } from '../../src/model/record';
import { decodeJsonLogs, decodeJsonMetrics, decodeJsonTraces } from '../../src/receiver/decode-json';
import { decodeProtoLogs, decodeProtoMetrics, decodeProtoTraces } from '../../src/receiver/decode-proto';
import { logEvents, metricEvents, spanEvents } from '../../src/sources/dispatch';
import { AGENT_EXPECTATIONS, assertAgentRecords } from '../helpers/agent-expectations';
import { repoRoot } from '../helpers/paths';

/**
 * Every OTLP request each real agent CLI sent in one run against the mock model (recorded by the
 * agents lab, byte for byte), read by Beacon's decoders and sources as the receiver does. The same
 * assertions run against the live CLIs in test/integration/agents-lab.test.ts; these keep the
 * sources honest where a CLI cannot be installed.
 */
function eventsOf(agent: string): NormalizedEvent[] {
  const dir = join(repoRoot(), 'test', 'fixtures', 'agents', agent);
  const out: NormalizedEvent[] = [];
  for (const f of readdirSync(dir).sort((a, b) => parseInt(a) - parseInt(b))) {
    const m = /^\d+-(traces|logs|metrics)\.(json|pb)$/.exec(f);
    if (!m) continue;
    const body = readFileSync(join(dir, f));
    const pb = m[2] === 'pb';
    if (m[1] === 'traces') out.push(...assertNoRejects(spanEvents(pb ? decodeProtoTraces(body) : decodeJsonTraces(body))));
    else if (m[1] === 'logs') out.push(...assertNoRejects(logEvents(pb ? decodeProtoLogs(body) : decodeJsonLogs(body))));
    else out.push(...metricEvents((pb ? decodeProtoMetrics(body) : decodeJsonMetrics(body)).points));
  }
  return out.sort((a, b) => (a.timeUnixNano < b.timeUnixNano ? -1 : 1));
}

function assertNoRejects(x: { events: NormalizedEvent[]; rejected: unknown[] }): NormalizedEvent[] {
  assert.deepEqual(x.rejected, []);
  return x.events;
}

describe('agent sources on the real CLIs\' recorded exports', () => {
  for (const [agent, want] of Object.entries(AGENT_EXPECTATIONS)) {
    describe(agent, () => {
      it(`${want.harness}: one session, the mock's tokens per call, the shell call once, the prompt where exported`, () => {
        assertAgentRecords(eventsOf(agent).map((e) => e.record), want);
      });
    });
  }

  it('Codex: a log record\'s `event_name` field (a source location) is never read as its name', () => {
    const records = decodeProtoLogs(readFileSync(join(repoRoot(), 'test', 'fixtures', 'agents', 'codex', '4-logs.pb')));
    assert.ok(records.some((r) => r.eventName.startsWith('event ')), 'the capture carries callsite event names');
    const forged = records.map((r) => ({ ...r, attributes: { ...r.attributes, 'event.name': r.eventName } }));
    assert.equal(logEvents(forged).events.length, 0);
  });
});
