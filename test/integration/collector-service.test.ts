import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { startCollectorService } from '../../src/collector/service';
import { resolveCollectorConfig, type CollectorConfig } from '../../src/config/config';
import { EventLog } from '../../src/store/log/event-log';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { traceRequest } from '../helpers/otlp-json';
import { tempDir } from '../helpers/paths';

/** The collector as a service, started and stopped in this process: no spawn, a real socket and a real log. */
const quiet = pino({ level: 'silent' });
const json = { 'content-type': 'application/json' };
/** Spans stamped now: retention (a pass every second here) must have nothing to prune. */
const now = () => BigInt(Date.now()) * 1_000_000n;

function config(overrides: Partial<CollectorConfig> = {}): Readonly<CollectorConfig> {
  const dir = tempDir('collector-service-');
  return resolveCollectorConfig({ flags: { port: 0, log: join(dir, 'events.db'), exportPath: join(dir, 'runtime.jsonl'), ...overrides } }, { HOME: dir });
}

/** Listening servers and timers this process holds: a stopped service must leave none behind. */
const handles = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap' || r === 'Timeout').sort();
/** Closed handles leave the list on a later turn of the event loop. */
const settled = async () => {
  await new Promise((r) => setTimeout(r, 50));
  return handles();
};

describe('collector service (in-process)', () => {
  it('starts receiver, writer, export and retention; stop answers in-flight exports, then closes all of them', async (t) => {
    const before = handles();
    const cfg = config({ retentionIntervalMs: 1000 });
    const service = await startCollectorService(cfg, quiet);
    t.after(() => service.stop()); // on a failure too (stop is idempotent), so the next test starts clean
    assert.match(service.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(service.port, 0);

    const turn = gooseDefaultLoopTurn({ sessionId: 'svc-1', start: now() });
    const r = await fetch(`${service.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(turn.spans)), headers: json });
    assert.equal(r.status, 200);
    assert.equal(service.writer.running, true);

    // An export already received when the stop begins is answered after its commit, never reset.
    let settledLate = false;
    const late = fetch(`${service.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(gooseDefaultLoopTurn({ sessionId: 'svc-2', start: now() }).spans)), headers: json });
    void late.finally(() => (settledLate = true)).catch(() => undefined);
    for (let i = 0; i < 5000 && service.writer.pending === 0 && !settledLate; i++) await new Promise((res) => setTimeout(res, 1));
    const stopping = service.stop();
    assert.equal(service.stop(), stopping, 'a second stop waits for the first');
    const lateStatus = (await late).status;
    await stopping;
    assert.equal(lateStatus, 200, 'the received export was committed and acknowledged');

    assert.equal(service.writer.running, false, 'writer and checkpointer threads are gone');
    await assert.rejects(fetch(`${service.url}/v1/traces`, { method: 'POST', body: '{}', headers: json }), 'the port no longer accepts connections');
    assert.deepEqual(await settled(), before, 'no server or timer left running');

    const log = EventLog.open(cfg.log, { readonly: true });
    const stored = log.list().map((row) => JSON.parse(row.record));
    log.close();
    const sessions = new Set(stored.map((e) => e.session?.id));
    assert.ok(sessions.has('svc-1'));
    assert.ok(sessions.has('svc-2'), 'the export acknowledged during the stop is stored');
    // the export was drained to the last commit before it closed
    const exported = readFileSync(cfg.exportPath!, 'utf8').trim().split('\n');
    assert.equal(exported.length, stored.length);
  });

  it('a failed start leaves nothing running: a foreign log file, a port in use', async (t) => {
    const before = handles();
    const dir = tempDir('collector-service-');
    const foreign = join(dir, 'notes.db');
    writeFileSync(foreign, 'not a database, and not ours to touch\n'.repeat(200));
    await assert.rejects(startCollectorService(config({ log: foreign }), quiet), /not a Beacon event log|refusing/);
    assert.equal(readFileSync(foreign, 'utf8'), 'not a database, and not ours to touch\n'.repeat(200));

    const first = await startCollectorService(config(), quiet);
    t.after(() => first.stop());
    await assert.rejects(startCollectorService(config({ port: first.port }), quiet), /EADDRINUSE/);
    await first.stop();
    assert.deepEqual(await settled(), before);
  });
});
