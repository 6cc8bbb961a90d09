import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { TEST_SESSION_PREFIX as MODEL_PREFIX } from '../../src/model/send-test';
import { toRows } from '../../src/ingest/rows';
import { decodeJsonTraces } from '../../src/receiver/signals/traces';
import { TEST_SESSION_PREFIX } from '../../src/setup/agents/spec';
import { spanEvents } from '../../src/sources/dispatch';
import { EventLog } from '../../src/store/log/event-log';
import { jsonl, runBeacon } from '../helpers/daemon';
import { hex } from '../helpers/goose-spans';
import { traceRequest } from '../helpers/otlp-json';
import { tempDir } from '../helpers/paths';

/** Issue 33: `beacon doctor --send-test`'s records never show in usage, sessions, tokens or unpriced lists; beacon events still has them. */
const DAY1 = 1787301000000000000n; // 2026-08-21 08:30 UTC
const TEST_SESSION = `${TEST_SESSION_PREFIX}20260821T083000-abc123`;

describe('--send-test records stay out of the reports (issue 33)', () => {
  it('the prefix the store leaves out is the one doctor writes', () => {
    assert.equal(MODEL_PREFIX, TEST_SESSION_PREFIX);
  });

  const home = tempDir('send-test-hidden-');
  const path = join(home, 'events.db');
  const log = EventLog.open(path);
  const chat = (session: string, model: string, input: number) => ({ name: 'chat', traceId: hex(16), spanId: hex(8), start: DAY1 + 10n, end: DAY1 + 20n, attributes: { 'gen_ai.operation.name': 'chat', 'session.id': session, 'gen_ai.provider.name': 'anthropic', 'gen_ai.response.model': model, 'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': 1 } });
  log.append(toRows(spanEvents(decodeJsonTraces(Buffer.from(JSON.stringify(traceRequest([chat('ses_real', 'claude-sonnet-4-5', 1000), chat(TEST_SESSION, 'beacon-doctor-test-model', 10)]))))).events).rows);
  log.close();
  const json = (args: string[]) => {
    const r = runBeacon(['token-usage', '--log', path, '--json', ...args], { HOME: home });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  it('token-usage: not in the totals, the groups or the unpriced list, from the rollup and from the rows alike', () => {
    // no window: the quarter-hour cells; a window starting mid-quarter-hour: its edge from the rows
    for (const window of [[], ['--since', '2026-08-21T08:29:00Z']]) {
      const r = json(window);
      assert.equal(r.totals.model_calls, 1, JSON.stringify(window));
      assert.equal(r.totals.usage.input_tokens, 1000);
      assert.deepEqual(r.totals.unpriced_models, []);
      for (const by of ['model', 'session', 'harness', 'day', 'block', 'repository']) {
        const g = json(['--by', by, ...window]).groups;
        assert.equal(g.reduce((a: number, x: { model_calls: number }) => a + x.model_calls, 0), 1, by);
        assert.ok(!JSON.stringify(g).includes('beacon-doctor-test'), by);
      }
    }
  });

  it('sessions leaves it out; beacon events still lists it', () => {
    const sessions = jsonl(runBeacon(['sessions', '--log', path, '--json'], { HOME: home }).stdout);
    assert.deepEqual(sessions.map((s) => s.id), ['ses_real']);
    const events = jsonl(runBeacon(['events', '--log', path, '--json', '--session', TEST_SESSION], { HOME: home }).stdout);
    assert.equal(events.length, 1);
  });
});
