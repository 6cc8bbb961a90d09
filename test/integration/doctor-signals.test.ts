import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runBeacon } from '../helpers/daemon';
import { tempDir } from '../helpers/paths';

/**
 * goose switches each signal off on its own (otel/otlp.rs): OTEL_LOGS_EXPORTER and
 * OTEL_METRICS_EXPORTER, and the per-signal protocol and endpoint variables. Doctor checks each
 * signal, not traces only (issue 23 item 8): goose's security logs and counters can be off alone.
 * goose is named: plain `beacon doctor` checks only the agents it finds, and this home has none.
 */
function checks(env: NodeJS.ProcessEnv): { id: string; status: string; message: string }[] {
  const r = runBeacon(['doctor', 'goose', '--json'], { HOME: tempDir('doctor-signals-'), BEACON_SERVICE_NO_ACTIVATE: '1', ...env });
  return JSON.parse(r.stdout).checks;
}

describe('doctor, signal by signal', () => {
  it('OTEL_LOGS_EXPORTER / OTEL_METRICS_EXPORTER other than otlp: each named as sending that signal elsewhere', () => {
    const c = checks({ OTEL_LOGS_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'console' });
    assert.match(c.find((x) => x.id === 'env-logs-exporter')?.message ?? '', /OTEL_LOGS_EXPORTER=none sends goose's security and approval log records elsewhere/);
    assert.match(c.find((x) => x.id === 'env-metrics-exporter')?.message ?? '', /OTEL_METRICS_EXPORTER=console sends goose's counters elsewhere/);
    assert.equal(c.find((x) => x.id === 'env-traces-exporter'), undefined);
  });

  it('a per-signal gRPC protocol and a per-signal endpoint elsewhere or without its path fail for that signal', () => {
    const c = checks({
      OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'http://collector.example:4318/v1/logs',
    });
    assert.ok(c.some((x) => x.id === 'env-protocol' && /OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=grpc: goose skips its security and approval log records/.test(x.message)));
    assert.match(c.find((x) => x.id === 'env-metrics-endpoint')?.message ?? '', /lacks \/v1\/metrics/);
    assert.match(c.find((x) => x.id === 'env-logs-endpoint')?.message ?? '', /sends goose's security and approval log records elsewhere/);
  });

  it('nothing set: one ok line', () => {
    const c = checks({ OTEL_LOGS_EXPORTER: '', OTEL_METRICS_EXPORTER: '', OTEL_TRACES_EXPORTER: '' });
    assert.equal(c.find((x) => x.id === 'environment')?.status, 'ok');
  });
});
