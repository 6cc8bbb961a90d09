import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { NormalizedEvent } from '../../src/model/record';
import { decodeJsonLogs, decodeJsonMetrics, decodeJsonTraces } from '../../src/receiver/decode-json';
import { decodeProtoLogs, decodeProtoMetrics, decodeProtoTraces } from '../../src/receiver/decode-proto';
import { logEvents, metricEvents, spanEvents } from '../../src/sources/dispatch';
import { AGENT_EXPECTATIONS } from '../helpers/agent-expectations';
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
      const events = eventsOf(agent);
      const of = (action: string) => events.filter((e) => e.record.event.action === action);

      it(`every event is harness ${want.harness}, collected over otlp, in one session`, () => {
        assert.ok(events.length > 0);
        assert.deepEqual([...new Set(events.map((e) => e.record.harness.name))], [want.harness]);
        assert.deepEqual([...new Set(events.map((e) => e.record.harness.collection_method))], ['otlp']);
        assert.equal(new Set(events.map((e) => e.record.session?.id)).size, 1);
        assert.ok(events[0]!.record.session?.id);
      });

      it('one model.invoked per model call, tokens equal to the mock\'s in disjoint buckets (one channel, never two)', () => {
        assert.deepEqual(of('model.invoked').map((e) => e.record.gen_ai?.usage), want.calls);
      });

      it('the shell call once, as command.executed with its command line (and call id where the agent sends one)', () => {
        const calls = of('command.executed');
        assert.equal(calls.length, 1);
        assert.equal(calls[0]!.record.command?.command, 'echo beacon-lab');
        if (want.callId) assert.equal(calls[0]!.record.gen_ai?.tool?.call?.id, want.callId);
        assert.equal(of('tool.failed').length + of('tool.invoked').length, 0);
      });

      it(want.prompt ? 'the prompt, with its text' : 'no prompt record (the agent exports none on the channel read)', () => {
        const prompts = of('prompt.submitted');
        if (!want.prompt) return assert.equal(prompts.length, 0);
        assert.equal(prompts.length, 1);
        assert.match(prompts[0]!.record.prompt?.text ?? '', /echo beacon-lab/);
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
