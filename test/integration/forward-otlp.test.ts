import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { hostname } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { beaconRows } from '../helpers/beacon-rows';
import { runBeacon, startCollector } from '../helpers/daemon';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { traceRequest } from '../helpers/otlp-json';
import { startFaultProxy, startMockReceiver, type Fault, type MockReceiver } from '../helpers/otlp-receiver';
import { health, waitCaughtUp, waitFor } from '../helpers/forward';
import { tempDir } from '../helpers/paths';



function storedIds(logPath: string): string[] {
  const log = EventLog.open(logPath, { readonly: true });
  try {
    return log.list({ order: 'seq' }).map((r) => JSON.parse(r.record).event.id as string);
  } finally {
    log.close();
  }
}

function append(logPath: string, n: number, prefix: string): void {
  const log = EventLog.open(logPath);
  log.append(beaconRows(n, prefix));
  log.close();
}

function configFile(dir: string, dest: Record<string, unknown>): string {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ collector: { forward: [{ name: 'gateway', type: 'otlp', from: 'start', batchDelayMs: 100, timeoutMs: 1000, ...dest }] } }));
  return file;
}

describe('forwarding OTLP/HTTP logs to an independent receiver (@elastic/mockotlpserver)', () => {
  let mock: MockReceiver;
  before(async () => {
    mock = await startMockReceiver();
  });
  after(async () => mock?.close());

  it('through 503 + Retry-After, 429, 413, a timeout and a refused connection: every event arrives, duplicates only from the timeout', async (t) => {
    const dir = tempDir('fwd-otlp-');
    const log = join(dir, 'events.db');
    append(log, 400, 'otlp');
    const script: Fault[] = [
      { kind: 'pass' },
      { kind: 'status', status: 503, retryAfter: '1' },
      { kind: 'pass' },
      { kind: 'status', status: 429 },
      { kind: 'status', status: 413 },
      { kind: 'pass' },
      { kind: 'timeout' },
      { kind: 'pass' },
      { kind: 'refuse', ms: 1500 },
    ];
    const proxy = await startFaultProxy(mock.url, script);
    const start = mock.received.length;
    const startBatches = mock.batches.length;
    const cfg = configFile(dir, { endpoint: proxy.url, headers: { Authorization: 'Bearer ${env:TEST_OTLP_TOKEN}' }, maxBatchRecords: 100 });
    const c = await startCollector({ log, args: ['--config', cfg], env: { TEST_OTLP_TOKEN: 'tok-5ecret-value' } });
    // Live events through the collector's own OTLP intake join the backlog.
    const turn = gooseDefaultLoopTurn({ sessionId: 'live-session' });
    assert.equal((await fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(turn.spans)), headers: { 'content-type': 'application/json' } })).status, 200);

    const expected = storedIds(log);
    assert.ok(expected.length > 400);
    await waitFor(() => script.length, (n) => n === 0, 'every fault injected', 60_000);
    const h = await waitCaughtUp(c, log, 'caught up after every fault');
    assert.equal(await c.stop(), 0);
    await proxy.close();

    const got = mock.received.slice(start);
    const counts = new Map<string, number>();
    for (const r of got) counts.set(String(r.attributes['log.record.uid']), (counts.get(String(r.attributes['log.record.uid'])) ?? 0) + 1);
    assert.deepEqual(expected.filter((id) => !counts.has(id)), [], 'none lost');

    // Duplicates are exactly the batch whose reply timed out (the receiver had it), never more.
    const forwarded = proxy.log.filter((e) => e.fault === 'pass' || e.fault === 'timeout');
    const timedOut = forwarded.findIndex((e) => e.fault === 'timeout');
    const timedOutIds = new Set(mock.batches[startBatches + timedOut]!.map((r) => String(r.attributes['log.record.uid'])));
    const dups = [...counts].filter(([, n]) => n > 1).map(([id]) => id);
    assert.ok(timedOutIds.size > 0);
    assert.deepEqual(dups.sort(), [...timedOutIds].sort(), 'the timed-out batch and nothing else arrived twice');
    assert.ok([...counts.values()].every((n) => n <= 2));
    t.diagnostic(`${expected.length} events, ${proxy.log.length} requests (${proxy.log.filter((e) => e.fault !== 'pass').length} faults), ${got.length} records received, ${dups.length} duplicates (the timed-out batch), 0 lost`);

    // Retry-After honoured; 413 split the batch; every request gzip and authorized; the token never printed.
    const i503 = proxy.log.findIndex((e) => e.status === 503);
    assert.ok(proxy.log[i503 + 1]!.at - proxy.log[i503]!.at >= 950, 'waited for Retry-After: 1');
    const i413 = proxy.log.findIndex((e) => e.status === 413);
    assert.ok(proxy.log[i413 + 1]!.bytes < proxy.log[i413]!.bytes, 'the batch refused with 413 was split');
    assert.ok(proxy.log.every((e) => e.gzip && e.authorization === 'Bearer tok-5ecret-value'));
    assert.ok(!c.lines.join('\n').includes('tok-5ecret-value'), 'the header value never reaches the logs');
    assert.ok(!JSON.stringify(h).includes('tok-5ecret-value'));
    const f = h.forward[0];
    assert.equal(f.name, 'gateway');
    assert.equal(f.type, 'otlp');
    assert.ok(f.retries >= 4, `retries counted: ${f.retries}`);
    assert.ok(f.lastSuccessAt);

    // One record as the official decoder sees it.
    const stored = (() => {
      const l = EventLog.open(log, { readonly: true });
      try {
        return l.list({ order: 'seq', limit: 1 })[0]!;
      } finally {
        l.close();
      }
    })();
    const rec = JSON.parse(stored.record);
    const r = got.find((x) => x.attributes['log.record.uid'] === rec.event.id)!;
    // The mock's proto files predate LogRecord.event_name (field 12): protoc reads it off the wire.
    const raw = execFileSync('protoc', ['--decode_raw'], { input: proxy.bodies[0] }).toString();
    const eventNames = [...raw.matchAll(/^\s*12: "([^"]*)"$/gm)].map((m) => m[1]);
    assert.equal(eventNames.length, 100, 'one event_name per LogRecord in the first batch');
    assert.ok(eventNames.every((n) => n === 'command.executed'));
    assert.equal(r.body, stored.record, 'the Beacon JSON is the body');
    assert.equal(r.timeUnixNano, stored.tsNs);
    assert.equal(r.traceId, rec.trace.id);
    assert.equal(r.spanId, rec.trace.span_id);
    assert.equal(r.severityNumber, 9);
    assert.equal(r.attributes['session.id'], rec.session.id);
    assert.equal(r.attributes['gen_ai.usage.input_tokens'], rec.gen_ai.usage.input_tokens);
    assert.equal(r.attributes['harness.collection_method'], 'hook');
    assert.equal(r.attributes['command.command'], rec.command.command);
    assert.deepEqual(
      { service: r.resource['service.name'], host: r.resource['host.name'], harness: r.resource['harness.name'] },
      { service: 'beacon', host: hostname(), harness: 'goose' },
    );
    const live = got.find((x) => x.attributes['session.id'] === 'live-session');
    assert.ok(live, 'events ingested over OTLP are forwarded too');
  });

  it('a refusal (401) pauses the destination with the reason in /health; a restart with kill -9 resumes at the cursor, exactly once when nothing failed', async () => {
    const dir = tempDir('fwd-otlp-pause-');
    const log = join(dir, 'events.db');
    append(log, 50, 'paused');
    const proxy = await startFaultProxy(mock.url, [{ kind: 'status', status: 401 }]);
    let c = await startCollector({ log, args: ['--config', configFile(dir, { endpoint: proxy.url })] });
    const h = await waitFor(() => health(c), (b) => b.forward[0].state === 'paused', 'paused');
    assert.equal(h.forward[0].lagRecords, 50);
    assert.match(h.forward[0].lastError.message, /HTTP 401: injected 401/);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(proxy.log.length, 1, 'a paused destination is not hammered');
    // beacon doctor reads the same /health and names the destination, the refusal and the backlog.
    const doctorCfg = join(dir, 'doctor.json');
    writeFileSync(doctorCfg, JSON.stringify({ collector: { port: c.port, log } }));
    const d = runBeacon(['doctor', '--json', '--config', doctorCfg], { HOME: dir });
    const check = (JSON.parse(d.stdout).checks as { id: string; status: string; message: string }[]).find((x) => x.id === 'forward-gateway')!;
    assert.equal(check.status, 'fail');
    assert.match(check.message, /gateway \(otlp\) refused events and is paused: HTTP 401.*; 50 events behind/);
    c.proc.kill('SIGKILL');
    await c.stop();
    await proxy.close();

    // Restarted (the gateway fixed): the 50 go once; then killed -9 while idle and restarted with more.
    const start = mock.received.length;
    const direct = configFile(dir, { endpoint: mock.url, compression: 'none' });
    c = await startCollector({ log, args: ['--config', direct] });
    await waitCaughtUp(c, log, 'sent after the restart');
    c.proc.kill('SIGKILL');
    await c.stop();
    append(log, 70, 'after-kill');
    c = await startCollector({ log, args: ['--config', direct] });
    await waitCaughtUp(c, log, 'sent after kill -9');
    assert.equal(await c.stop(), 0);
    const ids = mock.received.slice(start).map((r) => String(r.attributes['log.record.uid']));
    assert.equal(ids.length, 120);
    assert.equal(new Set(ids).size, 120);
  });

  it('a destination added later starts at the end of the log unless told from "start"', async () => {
    const dir = tempDir('fwd-otlp-end-');
    const log = join(dir, 'events.db');
    append(log, 30, 'old');
    const start = mock.received.length;
    const c = await startCollector({ log, args: ['--config', configFile(dir, { endpoint: mock.url, from: 'end', compression: 'none' })] });
    await waitFor(() => health(c), (b) => b.forward[0].state !== 'starting', 'started');
    append(log, 5, 'new');
    await waitFor(() => health(c), (b) => b.forward[0].forwarded === 5, 'new events sent');
    assert.equal(await c.stop(), 0);
    assert.deepEqual(mock.received.slice(start).map((r) => String(r.attributes['log.record.uid'])).sort(), ['new-0', 'new-1', 'new-2', 'new-3', 'new-4']);
  });

  it('never behind retention without saying so: at-risk in /health, then what the size limit took is counted and logged', async () => {
    const dir = tempDir('fwd-otlp-ret-');
    const log = join(dir, 'events.db');
    const dead = await startFaultProxy(mock.url, []);
    const url = dead.url;
    await dead.close(); // nothing listens there now: the destination stays behind
    append(log, 2000, 'ret');
    const file = join(dir, 'retention.json');
    writeFileSync(file, JSON.stringify({ collector: { retentionMaxBytes: 256 * 1024, retentionIntervalMs: 1500, forward: [{ name: 'gateway', type: 'otlp', endpoint: url, from: 'start', timeoutMs: 500 }] } }));
    const c = await startCollector({ log, args: ['--config', file] });
    const h = await waitFor(() => health(c), (b) => b.forward[0].lostToRetention > 0 && b.forward[0].lostToRetention + b.forward[0].lagRecords === 2000, 'size retention took unsent events');
    assert.equal(await c.stop(), 0);
    const f = h.forward[0];
    assert.equal(f.state, 'retrying');
    // every event is either still waiting or counted as lost: the wait above holds only when the two add up to 2000
    assert.ok(f.lagRecords > 0, 'some are still waiting');
    const lines = c.lines.map((l) => JSON.parse(l));
    assert.ok(lines.some((l) => /retention may prune events it has not received/.test(l.msg) && l.destination === 'gateway'), 'warned before');
    assert.ok(lines.some((l) => /retention pruned events this forward destination had not received/.test(l.msg) && l.events === f.lostToRetention), 'logged after, with the count');
  });
});
