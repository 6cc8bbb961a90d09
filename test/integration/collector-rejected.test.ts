import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { startCollectorService } from '../../src/collector/service';
import { resolveCollectorConfig } from '../../src/config/config';
import { BeaconError } from '../../src/model/errors';
import type { BeaconRecord } from '../../src/model/record';
import * as sanitize from '../../src/redact/sanitize';
import { encodeLogs, newTurn, promptInjectionFinding, toolCallCompleted } from '../helpers/goose-logs';
import { encodeMetrics, gooseMetrics, toolCompletion } from '../helpers/goose-metrics';
import { tempDir } from '../helpers/paths';

const PROTOBUF = { 'content-type': 'application/x-protobuf' };

/**
 * /health counts what every signal refused, not only spans: a log record or data point whose event
 * cannot be stored (here: the redactor refuses it, as it does an event over 64 KiB even without its
 * content) is counted under the signal's partial-success name and in `rejected`.
 */
describe('/health counts refused log records and data points', () => {
  it('a refused log record and a refused counter summary are counted per signal', async (t) => {
    const dir = tempDir('collector-rejected-');
    const config = resolveCollectorConfig({ flags: { port: 0, log: join(dir, 'events.db') } }, { HOME: dir });
    const service = await startCollectorService(config, pino({ level: 'silent' }));
    t.after(() => service.stop());
    const original = sanitize.sanitizeRecord;
    t.mock.method(sanitize, 'sanitizeRecord', (record: BeaconRecord, field?: Parameters<typeof original>[1]) => {
      const signal = (record.raw as { otel_signal?: string } | undefined)?.otel_signal;
      if (record.event.action === 'security.finding' || signal === 'metrics') throw new BeaconError('bad_data', `event ${record.event.action} cannot be stored`);
      return original(record, field);
    });

    const turn = newTurn('rejected_1');
    const logs = encodeLogs([promptInjectionFinding(turn, { callId: 'toolu_r1', findingId: 'SEC-r1', command: 'rm -rf /', confidence: 0.95 }), toolCallCompleted(turn, 'shell')]);
    const lr = await fetch(`${service.url}/v1/logs`, { method: 'POST', body: logs, headers: PROTOBUF });
    assert.equal(lr.status, 200);
    const T0 = 1787301000000000000n;
    const metrics = encodeMetrics(gooseMetrics([{ name: 'goose.tool_completions', points: [toolCompletion('shell', 'success', 2)] }], { start: T0, time: T0 + 60_000_000_000n }));
    const mr = await fetch(`${service.url}/v1/metrics`, { method: 'POST', body: metrics, headers: PROTOBUF });
    assert.equal(mr.status, 200);

    const health = (await (await fetch(`${service.url}/health`)).json()) as Record<string, number>;
    assert.equal(health.rejectedLogRecords, 1, JSON.stringify(health));
    assert.equal(health.rejectedDataPoints, 1, JSON.stringify(health));
    assert.equal(health.rejectedSpans, 0);
    assert.equal(health.rejected, 2);
    assert.equal(health.logRecords, 2);
  });
});
