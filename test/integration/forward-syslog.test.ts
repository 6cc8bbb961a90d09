import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { beaconRows } from '../helpers/beacon-rows';
import { makeCerts, type TestCerts } from '../helpers/certs';
import { startCollector, type RunningCollector } from '../helpers/daemon';
import { health, waitCaughtUp, waitFor } from '../helpers/forward';
import { gooseDefaultLoopTurn } from '../helpers/goose-spans';
import { runHookAsync } from '../helpers/hooks';
import { traceRequest } from '../helpers/otlp-json';
import { startMockReceiver } from '../helpers/otlp-receiver';
import { tempDir } from '../helpers/paths';
import { startRsyslog, type RunningRsyslog } from '../helpers/rsyslog';


const forwardHealth = async (c: RunningCollector) => (await health(c)).forward[0];

/** Event ids in rsyslog's file, parsed from the message (the Beacon JSON after the BOM). */
function receivedIds(rs: RunningRsyslog): string[] {
  return rs.lines().map((l) => JSON.parse(l.slice(l.indexOf('\uFEFF') + 1)).event.id as string);
}

function append(logPath: string, n: number, prefix: string): string[] {
  const log = EventLog.open(logPath);
  const rows = beaconRows(n, prefix);
  log.append(rows);
  log.close();
  return rows.map((r) => r.id);
}

describe('forwarding to a real rsyslog over RFC 5425 TLS with a client certificate', () => {
  let dir: string;
  let certs: TestCerts;
  let rs: RunningRsyslog;
  before(async () => {
    dir = tempDir('fwd-syslog-');
    certs = makeCerts(dir);
    rs = await startRsyslog(dir, certs);
  });
  after(async () => rs?.stop());

  const config = (port: number, tls: Record<string, string>) => {
    const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({
      collector: {
        forward: [{ name: 'siem', type: 'syslog', address: `127.0.0.1:${port}`, tls, appName: 'beacon', facility: 'local0', from: 'start', batchDelayMs: 100, timeoutMs: 3000 }],
      },
    }));
    return file;
  };

  it('delivers every event exactly once across a receiver restart and a kill -9 of the collector', async (t) => {
    const log = join(dir, 'events.db');
    const cfg = config(rs.port, { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey });
    const expected = append(log, 300, 'a'); // backlog: from "start" sends it

    let c = await startCollector({ log, args: ['--config', cfg] });
    await waitFor(() => receivedIds(rs).length, (n) => n >= 300, 'backlog received');
    let h = (await waitCaughtUp(c, log, 'caught up')).forward[0];
    assert.equal(h.type, 'syslog');
    assert.equal(h.name, 'siem');

    // The receiver goes away: events wait in the log, health says the destination is retrying.
    await rs.stop();
    expected.push(...append(log, 200, 'b'));
    h = await waitFor(() => forwardHealth(c), (f) => f.state === 'retrying' && f.lagRecords === 200, 'retrying while rsyslog is down');
    assert.match(h.lastError.message, /ECONNREFUSED/);
    // …and the collector is killed while it cannot deliver.
    c.proc.kill('SIGKILL');
    await c.stop();
    await rs.restart();
    expected.push(...append(log, 100, 'c'));

    c = await startCollector({ log, args: ['--config', cfg] });
    await waitCaughtUp(c, log, 'caught up after the restarts');
    // Live traffic after the restarts, then a receiver restart while caught up.
    expected.push(...append(log, 150, 'd'));
    await waitCaughtUp(c, log, 'live events forwarded');
    await rs.restart();
    expected.push(...append(log, 50, 'e'));
    await waitCaughtUp(c, log, 'forwarded after the receiver restart');
    await waitFor(() => receivedIds(rs).length, (n) => n >= expected.length, 'all written by rsyslog');
    assert.equal(await c.stop(), 0);

    const ids = receivedIds(rs);
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    assert.deepEqual([...counts].filter(([, n]) => n !== 1), [], 'no event twice');
    assert.deepEqual(expected.filter((id) => !counts.has(id)), [], 'no event lost');
    assert.equal(ids.length, expected.length);
    t.diagnostic(`${expected.length} events through 2 rsyslog restarts and a kill -9: ${ids.length} written, 0 twice, 0 lost`);

    // The message itself: RFC 5424 header fields, SD params without dots, the Beacon JSON as MSG.
    const line = rs.lines().find((l) => l.includes('"a-3"'))!;
    const [pri, msgid, sd] = line.split('|') as [string, string, string];
    assert.equal(msgid, 'command.executed');
    assert.equal(Number(pri), 16 * 8 + 3, 'local0, severity high → error (3)');
    assert.match(sd, /^\[beacon@32473 event_id="a-3" action="command\.executed" category="process" severity="high" harness="goose" collection_method="hook" session_id="a-session \\"\\]\\\\"/);
    assert.doesNotMatch(sd.replace(/"(?:[^"\\]|\\.)*"/g, '""'), /\w\.\w/, 'no dotted SD-PARAM names');
    const msg = line.slice(line.indexOf('\uFEFF') + 1);
    assert.equal(JSON.parse(msg).command.command, 'ls -la "quoted" ]bracket\\ ünïcode 3\nsecond line');
  });

  it('a client certificate the receiver refuses delivers nothing, keeps the cursor, and says so', async () => {
    const log = join(dir, 'refused.db');
    const cfg = config(rs.port, { ca: certs.ca, cert: certs.strangerCert, key: certs.strangerKey });
    const before = rs.lines().length;
    append(log, 20, 'refused');
    const c = await startCollector({ log, args: ['--config', cfg] });
    const h = await waitFor(() => forwardHealth(c), (f) => f.state === 'retrying' && f.retries >= 1, 'refused');
    assert.equal(h.lagRecords, 20);
    assert.equal(h.lastSuccessAt, null);
    assert.match(h.lastError.message, /closed the session right after the TLS handshake|ECONNRESET/);
    assert.equal(await c.stop(), 0);
    assert.equal(rs.lines().length, before, 'rsyslog wrote nothing from a refused client');
  });

  it('a goose session (OTLP spans and hook events) reaches both receivers, syslog and OTLP', async () => {
    const mock = await startMockReceiver();
    try {
      const log = join(dir, 'both.db');
      const file = join(dir, 'both.json');
      writeFileSync(file, JSON.stringify({ collector: { forward: [
        { name: 'siem', type: 'syslog', address: `127.0.0.1:${rs.port}`, tls: { ca: certs.ca, cert: certs.clientCert, key: certs.clientKey }, batchDelayMs: 100 },
        { name: 'gateway', type: 'otlp', endpoint: mock.url, compression: 'none', batchDelayMs: 100 },
      ] } }));
      const c = await startCollector({ log, args: ['--config', file] });
      await waitFor(() => health(c), (b) => b.forward.every((f: { state: string }) => f.state !== 'starting'), 'started');
      const turn = gooseDefaultLoopTurn({ sessionId: 'goose-both' });
      assert.equal((await fetch(`${c.url}/v1/traces`, { method: 'POST', body: JSON.stringify(traceRequest(turn.spans)), headers: { 'content-type': 'application/json' } })).status, 200);
      await runHookAsync(log, 'prompt-submit', { event: 'UserPromptSubmit', session_id: 'goose-both', message: 'hello' });
      const stored = (() => {
        const l = EventLog.open(log, { readonly: true });
        try {
          return l.list({ order: 'seq' }).map((r) => JSON.parse(r.record).event.id as string);
        } finally {
          l.close();
        }
      })();
      assert.ok(stored.length >= 3);
      await waitCaughtUp(c, log, 'both caught up');
      assert.equal(await c.stop(), 0);
      // Acknowledged is not yet written: rsyslog's queue writes the file a moment later.
      await waitFor(() => stored.filter((id) => !receivedIds(rs).includes(id)), (missing) => missing.length === 0, 'rsyslog wrote them', 10_000);
      const syslogIds = new Set(receivedIds(rs));
      const otlpIds = new Set(mock.received.map((r) => String(r.attributes['log.record.uid'])));
      assert.deepEqual(stored.filter((id) => !syslogIds.has(id)), [], 'all in rsyslog');
      assert.deepEqual(stored.filter((id) => !otlpIds.has(id)), [], 'all at the OTLP receiver');
      assert.ok(mock.received.some((r) => r.attributes['harness.collection_method'] === 'hook') && mock.received.some((r) => r.attributes['harness.collection_method'] === 'otlp'));
    } finally {
      await mock.close();
    }
  });
});
