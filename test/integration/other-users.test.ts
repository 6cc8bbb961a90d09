import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { jsonl, runBeacon, startCollector, type RunningCollector } from '../helpers/daemon';
import { ATTACKER, asOtherUser } from '../helpers/other-user';
import { sendFrom } from '../helpers/otlp-sender';
import { tempDir } from '../helpers/paths';
import { freePort } from '../helpers/ports';

/**
 * Issue 29 (a red team with a second local user), item 7: the collector runs as this user (root in
 * CI); the other user is uid 65534, reached with setpriv, sending from a process of its own.
 */

const stored = (c: RunningCollector, session: string) => jsonl(runBeacon(['events', '--log', c.log, '--json', '--session', session]).stdout).length;
const health = async (url: string) => (await (await fetch(`${url}/health`)).json()) as { senders?: { check: string; refused: number }; inserted: number };

describe('OTLP from another local user is refused (issue 29 item 7)', () => {
  // Fails on main: both exports were stored (200 / OK), under the victim's log.
  for (const host of ['127.0.0.1', '::1']) {
    it(`over OTLP/HTTP and OTLP/gRPC on ${host}: uid ${ATTACKER} gets 403 / PERMISSION_DENIED and stores nothing; the collector's own user is taken`, async (t) => {
      const other = asOtherUser(t);
      if (!other) return;
      const c = await startCollector({ args: ['--host', host, '--grpc-port', String(await freePort())] });
      try {
        const url = host === '::1' ? `http://[::1]:${c.port}` : c.url;
        const refused = sendFrom(other, { url, grpc: c.grpc, session: 'intruder', exports: 2 });
        assert.deepEqual(refused.http, [403, 403], refused.httpBody);
        const status = JSON.parse(refused.httpBody!) as { code: number; message: string };
        assert.equal(status.code, 7, 'an OTLP Status body, PERMISSION_DENIED');
        assert.match(status.message, new RegExp(`takes OTLP exports from its own user only; this connection comes from uid ${ATTACKER} \\(otlpAllowOtherUsers\\)`));
        assert.deepEqual(refused.grpc, [7, 7], refused.grpcDetails);
        assert.match(refused.grpcDetails!, new RegExp(`uid ${ATTACKER}`));
        assert.equal(stored(c, 'intruder'), 0, 'nothing of theirs is stored');

        const own = sendFrom([], { url, grpc: c.grpc, session: 'owner', exports: 1 });
        assert.deepEqual([own.http, own.grpc], [[200], [0]], JSON.stringify(own));
        assert.ok(stored(c, 'owner') > 0, 'the own user\'s export is stored');
        const h = await health(url);
        assert.deepEqual(h.senders, { check: 'on', refused: 4 }, '/health counts every refused export');
        assert.ok(c.lines.some((l) => /"status":403,"code":"forbidden","path":"\/v1\/traces"/.test(l)), 'the refusal log has the HTTP refusal');
        assert.ok(c.lines.some((l) => /"code":"forbidden","path":"\/opentelemetry\.proto\.collector\.trace\.v1\.TraceService\/Export"/.test(l)), 'and the gRPC one');
        assert.ok(c.lines.some((l) => new RegExp(`"uid":${ATTACKER}.*OTLP exports from another local user refused`).test(l)), 'the collector says who');
      } finally {
        assert.equal(await c.stop(), 0);
      }
    });
  }

  it('otlpAllowOtherUsers: true takes them (the check is off, and /health says so)', async (t) => {
    const other = asOtherUser(t);
    if (!other) return;
    const dir = tempDir('allow-others-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ collector: { otlpAllowOtherUsers: true } }));
    const c = await startCollector({ args: ['--config', join(dir, 'config.json')] });
    try {
      assert.deepEqual(sendFrom(other, { url: c.url, session: 'guest', exports: 1 }).http, [200]);
      assert.ok(stored(c, 'guest') > 0);
      assert.deepEqual((await health(c.url)).senders, { check: 'off', refused: 0 });
    } finally {
      assert.equal(await c.stop(), 0);
    }
  });

  // Fails on main: the flood was stored, and size retention deleted the user's events (5 → 0) to make room.
  it("size retention under a flood from another user: the user's events survive (the same flood from the user itself would have pushed them out)", async (t) => {
    const other = asOtherUser(t);
    if (!other) return;
    const dir = tempDir('flood-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ collector: { retentionMaxBytes: 512 * 1024, retentionMaxAgeDays: 0, retentionIntervalMs: 300 } }));
    const c = await startCollector({ args: ['--config', join(dir, 'config.json')] });
    try {
      sendFrom([], { url: c.url, session: 'victim', exports: 2 });
      const mine = stored(c, 'victim');
      assert.ok(mine >= 5, `the user's turn is stored: ${mine} events`);
      const flood = { url: c.url, session: 'flood', exports: 100 }; // ~1 MB of events (about 2.3 KB each), twice the limit
      const refused = sendFrom(other, flood);
      await new Promise((r) => setTimeout(r, 2500)); // retention passes at 300 ms, then every second
      assert.equal(stored(c, 'victim'), mine, "the user's events are all there");
      assert.ok(refused.http.every((s) => s === 403), `every export of the flood refused: ${refused.http}`);
      assert.equal(stored(c, 'flood'), 0);
      // The same flood from the user's own uid is stored, and retention does prune for it: the limit was within reach.
      assert.ok(sendFrom([], flood).http.every((s) => s === 200));
      for (let i = 0; i < 50 && !c.lines.some((l) => l.includes('retention pruned events')); i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(c.lines.some((l) => l.includes('retention pruned events')), 'that flood makes retention prune');
      assert.ok(stored(c, 'victim') < mine, 'and it is the oldest, the user\'s first turn, that goes');
    } finally {
      assert.equal(await c.stop(), 0);
    }
  });

  // Fastify's router decodes the path before it matches a route; the sender check and the token
  // re-read the raw URL, so on main each of these reached the traces handler as "not an export"
  // (200, stored in the victim's log). The router takes an absolute-form target and drops a '#…'.
  const ROUTED = ['/v1/%74races', '/%761/traces', '/v1/tr%61ces', '/v1/traces#x', 'http://127.0.0.1/v1/traces'];
  const NOT_ROUTED = ['/v1/traces/', '//v1/traces', '/V1/traces', '/v1/traces;x']; // Fastify 5: no trailing/duplicate slash, case-sensitive, no ';' delimiter
  const send = (prefix: readonly string[], c: RunningCollector, path: string, session: string, token?: string) =>
    sendFrom(prefix, { url: c.url, session, exports: 1, path, ...(token ? { token } : {}) });

  it(`a path the router decodes (/v1/%74races, /%761/traces, …) is an export like /v1/traces: uid ${ATTACKER} gets 403 and stores nothing`, async (t) => {
    const other = asOtherUser(t);
    if (!other) return;
    const c = await startCollector();
    try {
      for (const [i, path] of ROUTED.entries()) {
        const r = send(other, c, path, `intruder-${i}`);
        assert.deepEqual(r.http, [403], `${path}: ${r.httpBody}`);
        assert.match(r.httpBody!, new RegExp(`this connection comes from uid ${ATTACKER}`), path);
        assert.equal(stored(c, `intruder-${i}`), 0, `${path}: nothing stored`);
      }
      for (const [i, path] of NOT_ROUTED.entries()) {
        assert.deepEqual(send(other, c, path, `stray-${i}`).http, [404], `${path} reaches no route`);
        assert.equal(stored(c, `stray-${i}`), 0, path);
      }
      assert.deepEqual((await health(c.url)).senders, { check: 'on', refused: ROUTED.length });
      const refusedPaths = c.lines.filter((l) => l.includes('"code":"forbidden"')).map((l) => (JSON.parse(l) as { path: string }).path);
      assert.deepEqual([...new Set(refusedPaths)], ['/v1/traces'], 'the refusal log names the route that refused');
      for (const [i, path] of ROUTED.entries()) {
        assert.deepEqual(send([], c, path, `owner-${i}`).http, [200], `the own user on ${path}`);
        assert.ok(stored(c, `owner-${i}`) > 0, `${path}: the own user's export is stored`);
      }
    } finally {
      assert.equal(await c.stop(), 0);
    }
  });

  it('with otlpToken, a decoded path needs the token too: 401 without it (either user), 403 for the other user with it, stored for the own user with it', async (t) => {
    const other = asOtherUser(t);
    if (!other) return;
    const token = 'path-secret-0123456789abcdef';
    const dir = tempDir('token-paths-');
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ collector: { otlpToken: token } }));
    const c = await startCollector({ args: ['--config', join(dir, 'config.json')] });
    try {
      for (const [i, path] of ['/v1/traces', ...ROUTED].entries()) {
        const intruder = send(other, c, path, `intruder-${i}`);
        assert.deepEqual(intruder.http, [401], `uid ${ATTACKER} on ${path}: ${intruder.httpBody}`);
        assert.match(intruder.httpBody!, /otlpToken/);
        assert.deepEqual(send(other, c, path, `intruder-${i}`, token).http, [403], `uid ${ATTACKER} with the token on ${path}`);
        assert.deepEqual(send([], c, path, `owner-${i}`).http, [401], `the own user without the token on ${path}`);
        assert.equal(stored(c, `intruder-${i}`) + stored(c, `owner-${i}`), 0, `${path}: nothing stored`);
        assert.deepEqual(send([], c, path, `owner-${i}`, token).http, [200], `the own user with the token on ${path}`);
        assert.ok(stored(c, `owner-${i}`) > 0, `${path}: stored`);
      }
    } finally {
      assert.equal(await c.stop(), 0);
    }
  });
});
