import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseForwardDestinations } from '../../src/forward/registry';
import { resolveHeaders, type OtlpDestination } from '../../src/forward/destinations/otlp';
import type { SyslogDestination } from '../../src/forward/destinations/syslog';
import { readConfigFile, resolveCollectorConfig } from '../../src/config/config';
import { DestinationLoop } from '../../src/forward/destination-loop';
import type { Outcome } from '../../src/forward/outcome';
import { backoffMs, parseRetryAfter } from '../../src/forward/retry';
import { sdValue, syslogFrame, timestamp } from '../../src/forward/syslog-message';
import { EventLog, type StoredRow } from '../../src/store/log/event-log';
import { ForwardCursors } from '../../src/store/maintenance/forward-cursors';
import { prune } from '../../src/store/maintenance/retention';
import { beaconRows } from '../helpers/beacon-rows';
import { tempDir } from '../helpers/paths';
import { writeFileSync } from 'node:fs';

const parse = (v: unknown) => parseForwardDestinations(v, (p) => p.replace(/^~\//, '/home/u/'));

describe('forward config', () => {
  it('resolves OTLP and syslog destinations with their defaults', () => {
    const [o, s] = parse([
      { name: 'gw', type: 'otlp', endpoint: 'https://otel.example.com:4318/', headers: { Authorization: 'Bearer ${env:TOK}' }, tls: { ca: '~/ca.pem' } },
      { name: 'siem', type: 'syslog', address: 'siem.example.com:6514', facility: 'audit' },
    ]) as [OtlpDestination, SyslogDestination];
    assert.equal(o.url, 'https://otel.example.com:4318/v1/logs');
    assert.equal(o.compression, 'gzip');
    assert.equal(o.from, 'end');
    assert.deepEqual(o.tls, { ca: '/home/u/ca.pem' });
    assert.deepEqual({ b: o.maxBatchRecords, d: o.batchDelayMs }, { b: 512, d: 5000 });
    assert.deepEqual(resolveHeaders(o, { TOK: 's3cret' }), { authorization: 'Bearer s3cret' });
    assert.deepEqual({ host: s.host, port: s.port, tls: s.tls, app: s.appName, facility: s.facility }, { host: 'siem.example.com', port: 6514, tls: {}, app: 'beacon', facility: 13 });
    assert.equal((parse([{ name: 'tcp', type: 'syslog', address: '[::1]:514', tls: false }])[0] as SyslogDestination).tls, false);
  });

  it('refuses what would misroute or leak, naming the key and never a value', () => {
    const bad: [unknown, RegExp][] = [
      [{ type: 'otlp', endpoint: 'http://x' }, /"name"/],
      [[{ name: 'a', type: 'otlp', endpoint: 'http://x:4318/v1/logs' }], /appends \/v1\/logs/],
      [[{ name: 'a', type: 'otlp', endpoint: 'http://user:hunter2@x:4318' }], /credentials in "headers"/],
      [[{ name: 'a', type: 'syslog', address: 'no-port' }], /host:port/],
      [[{ name: 'a', type: 'syslog', address: 'h:1', tls: { cert: 'c.pem' } }], /both "tls.cert" and "tls.key"/],
      [[{ name: 'a', type: 'otlp', endpoint: 'http://x', headers: { h: 'v\r\nX: 1' } }], /line break/],
      [[{ name: 'a', type: 'otlp', endpoint: 'http://x', bogus: 1 }], /unknown key "bogus"/],
      [[{ name: 'a', type: 'otlp', endpoint: 'http://otel.corp:4318', headers: { Authorization: 'Bearer s3cr3t-value' } }], /"authorization" would go to otel\.corp:4318 in clear text/],
      [[{ name: 'a', type: 'otlp', endpoint: 'http://x' }, { name: 'a', type: 'otlp', endpoint: 'http://y' }], /two destinations/],
    ];
    for (const [v, re] of bad) assert.throws(() => parse(Array.isArray(v) ? v : [v]), re);
    // https: a credential header to a plain http:// endpoint off this machine is refused (issue 22 item 10)
    const o = parse([{ name: 'gw', type: 'otlp', endpoint: 'https://x', headers: { 'x-api-key': 'literal-secret ${env:MISSING_VAR}' } }])[0] as OtlpDestination;
    assert.throws(() => resolveHeaders(o, {}), (e: Error) => /MISSING_VAR/.test(e.message) && !e.message.includes('literal-secret'));
  });

  it('reads "forward" from the collector config file', () => {
    const dir = tempDir('fwd-cfg-');
    const file = join(dir, 'c.json');
    writeFileSync(file, JSON.stringify({ collector: { forward: [{ name: 'gw', type: 'otlp', endpoint: 'http://127.0.0.1:1' }] } }));
    const cfg = resolveCollectorConfig({ file: readConfigFile(file, {}) }, { HOME: dir });
    assert.equal(cfg.forward.length, 1);
    assert.equal(resolveCollectorConfig({}, { HOME: dir }).forward.length, 0);
  });
});

describe('syslog messages (RFC 5424, RFC 6587 octet counting)', () => {
  const row = beaconRows(4, 'm')[3]!; // severity "high"
  it('frames MSG-LEN in octets, maps PRI, escapes SD values and carries the JSON after a BOM', () => {
    const frame = syslogFrame(row.record, 1_764_576_000_123_456_789n, { appName: 'beacon', facility: 16 });
    const sp = frame.indexOf(0x20);
    const len = Number(frame.subarray(0, sp).toString());
    assert.equal(len, frame.length - sp - 1, 'the count is bytes, not characters (the record holds ü)');
    const msg = frame.subarray(sp + 1).toString('utf8');
    assert.match(msg, /^<131>1 2025-12-01T08:00:00\.123456Z laptop-7 beacon - command\.executed \[beacon@32473 event_id="m-3" /);
    assert.match(msg, / session_id="m-session \\"\\]\\\\"/);
    assert.equal(JSON.parse(msg.slice(msg.indexOf('\uFEFF') + 1)).event.id, 'm-3');
    assert.ok(!/[\r\n]/.test(msg.slice(0, msg.indexOf('\uFEFF'))), 'no line break before MSG');
  });
  it('SD values: quote, backslash and bracket escaped; control characters never pass', () => {
    assert.equal(sdValue('a"b\\c]d\ne'), 'a\\"b\\\\c\\]d e');
    assert.equal(timestamp(5n), '1970-01-01T00:00:00.000000Z');
  });
});

describe('retry timing', () => {
  it('Retry-After as seconds or HTTP date, bounded; backoff doubles with jitter up to 30 s', () => {
    assert.equal(parseRetryAfter('3'), 3000);
    assert.equal(parseRetryAfter(new Date(Date.now() + 10_000).toUTCString())! > 8000, true);
    assert.equal(parseRetryAfter('99999'), 300_000);
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
    assert.equal(backoffMs(0, 1000, 30_000, () => 0.5), 1000);
    assert.equal(backoffMs(3, 1000, 30_000, () => 0.5), 8000);
    assert.equal(backoffMs(20, 1000, 30_000, () => 1), 36_000);
    assert.equal(backoffMs(2, 1000, 30_000, () => 0), 3200);
  });
});

describe('destination loop', () => {
  function setup(n: number) {
    const log = EventLog.open(join(tempDir('fwd-loop-'), 'events.db'));
    log.append(beaconRows(n, 'l'));
    const cursors = new ForwardCursors(log.db, 'test');
    const start = cursors.open([{ name: 'd', from: 'start' }]).get('d')!;
    return { log, cursors, start };
  }
  const dest = { name: 'd', type: 'otlp', maxBatchRecords: 10, batchDelayMs: 0, timeoutMs: 1000, from: 'start' } as unknown as OtlpDestination;

  it('moves the cursor only on acknowledgement, splits on 413, pauses on a refusal', async () => {
    const { log, cursors, start } = setup(25);
    const outcomes: Outcome[] = [
      { kind: 'ack', rejected: 0, message: '' },
      { kind: 'too_large', message: 'HTTP 413' },
      { kind: 'ack', rejected: 2, message: 'partial success: 2 rejected' },
      { kind: 'refused', message: 'HTTP 403' },
    ];
    const sizes: number[] = [];
    let loop: DestinationLoop | undefined;
    const sender = {
      send: async (rows: readonly StoredRow[]) => {
        sizes.push(rows.length);
        const o = outcomes.shift()!;
        if (outcomes.length === 0) setImmediate(() => loop!.stop());
        return o;
      },
      close() {},
    };
    loop = new DestinationLoop(dest, log, cursors, sender, start);
    await loop.run();
    assert.deepEqual(sizes, [10, 10, 5, 10], '413 halves the batch, success grows it back');
    assert.equal(loop.state.cursor, 15n, 'the refused batch is not acknowledged');
    assert.equal(cursors.open([{ name: 'd', from: 'start' }]).get('d'), 15n, 'the cursor is durable');
    assert.equal(loop.state.state, 'paused');
    assert.equal(loop.state.rejected, 2);
    assert.equal(loop.state.forwarded, 13);
    assert.match(loop.state.lastError!.message, /HTTP 403/);
    log.close();
  });

  it('a temporary failure resends the same events, waiting at least Retry-After', async () => {
    const { log, cursors, start } = setup(3);
    const seen: string[][] = [];
    const times: number[] = [];
    let loop: DestinationLoop | undefined;
    const outcomes: Outcome[] = [{ kind: 'retry', message: 'HTTP 503', retryAfterMs: 1200 }, { kind: 'ack', rejected: 0, message: '' }];
    loop = new DestinationLoop(dest, log, cursors, {
      send: async (rows) => {
        seen.push(rows.map((r) => JSON.parse(r.record).event.id));
        times.push(Date.now());
        const o = outcomes.shift()!;
        if (outcomes.length === 0) setImmediate(() => loop!.stop());
        return o;
      },
      close() {},
    }, start);
    await loop.run();
    assert.deepEqual(seen[0], seen[1]);
    assert.ok(times[1]! - times[0]! >= 1150);
    assert.equal(loop.state.cursor, 3n);
    log.close();
  });
});

describe('retention and forward cursors', () => {
  const DAY = 86_400_000_000_000n;
  const now = BigInt(Date.now()) * 1_000_000n;
  it('age retention waits for a destination behind; the size limit does not, and counts what it took from whom', () => {
    const log = EventLog.open(join(tempDir('fwd-ret-'), 'events.db'));
    log.append(beaconRows(300, 'old', () => now - 100n * DAY));
    log.db.prepare('UPDATE events SET received_ns = ?').run(now - 100n * DAY); // stored 100 days ago (retention judges that)
    const cursors = new ForwardCursors(log.db, 'test');
    cursors.open([{ name: 'behind', from: 'start' }, { name: 'ahead', from: 'start' }]);
    cursors.advance('behind', 100n);
    cursors.advance('ahead', 300n);
    let r = prune(log.db, { maxAgeDays: 90, maxBytes: 0 }, now);
    assert.equal(r.deletedByAge, 100, 'only what every destination acknowledged');
    assert.equal(r.heldForForwarding, 200);
    log.append(beaconRows(3000, 'new', (i) => now - DAY + BigInt(i)));
    r = prune(log.db, { maxAgeDays: 0, maxBytes: 200 * 1024 }, now);
    assert.ok(r.deletedBySize > 200);
    const behind = r.unforwardedDeleted.behind ?? 0;
    const ahead = r.unforwardedDeleted.ahead ?? 0;
    assert.equal(behind - ahead, 200, 'the 200 old events only "behind" had not received, plus the new ones neither had');
    assert.ok(behind <= r.deletedBySize);
    // A destination removed from the config stops holding retention.
    cursors.open([{ name: 'ahead', from: 'start' }]);
    assert.deepEqual((log.db.prepare('SELECT name FROM forward_cursors').all() as { name: string }[]).map((x) => x.name), ['ahead']);
    log.close();
  });
});
