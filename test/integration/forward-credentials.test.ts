/**
 * A forward destination's credentials stay where they belong (issue 22 item 10). On main: a
 * receiver answering 401 with a body that echoes `Bearer <token>` put the token in /health
 * `forward[].lastError` (any local user reads /health) and in `beacon doctor`; and an http://
 * endpoint off this machine with an Authorization header was accepted, sending the token in clear.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EventLog } from '../../src/store/log/event-log';
import { beaconRows } from '../helpers/beacon-rows';
import { runBeacon, startCollector } from '../helpers/daemon';
import { health, waitFor } from '../helpers/forward';
import { BEACON_BIN, tempDir } from '../helpers/paths';

const TOKEN = 'fwdTok_9f8e7d6c5b4a39281706f5e4d3c2b1a0';

function configFile(dir: string, dest: Record<string, unknown>): string {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ collector: { forward: [{ name: 'gateway', type: 'otlp', from: 'start', batchDelayMs: 100, timeoutMs: 1000, ...dest }] } }));
  return file;
}

describe('forward credentials', () => {
  let receiver: Server;
  let url: string;
  const bodies = [
    // a JSON google.rpc.Status whose message echoes the header, and a plain-text page that does
    (auth: string) => ({ type: 'application/json', body: JSON.stringify({ code: 16, message: `invalid credentials: ${auth}` }) }),
    (auth: string) => ({ type: 'text/html', body: `<h1>401</h1><pre>Authorization: ${auth}\r\nrejected</pre>` }),
  ];
  let reply = bodies[0]!;

  before(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const r = reply(String(req.headers.authorization));
        res.writeHead(401, { 'content-type': r.type }).end(r.body);
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  after(() => receiver?.close());

  for (const [i, what] of [[0, 'JSON status'], [1, 'text page']] as const) {
    it(`a 401 whose ${what} echoes the token: the reason is in /health and doctor, the token is not`, async () => {
      reply = bodies[i]!;
      const dir = tempDir('fwd-cred-');
      const log = join(dir, 'events.db');
      const l = EventLog.open(log);
      l.append(beaconRows(3, 'cred'));
      l.close();
      const c = await startCollector({ log, args: ['--config', configFile(dir, { endpoint: url, headers: { Authorization: 'Bearer ${env:FWD_TOKEN}' } })], env: { FWD_TOKEN: TOKEN } });
      try {
        const h = await waitFor(() => health(c), (b) => b.forward[0].state === 'paused', 'paused');
        const text = JSON.stringify(h);
        assert.match(h.forward[0].lastError.message, /HTTP 401/);
        assert.ok(!text.includes(TOKEN.slice(0, 12)), `the token in /health: ${h.forward[0].lastError.message}`);
        const doctorCfg = join(dir, 'doctor.json');
        writeFileSync(doctorCfg, JSON.stringify({ collector: { port: c.port, log } }));
        const d = runBeacon(['doctor', '--json', '--config', doctorCfg], { HOME: dir });
        assert.match(d.stdout, /refused events and is paused: HTTP 401/);
        assert.ok(!d.stdout.includes(TOKEN.slice(0, 12)), 'the token in doctor');
      } finally {
        await c.stop();
      }
    });
  }

  it('an http:// endpoint off this machine with an Authorization header is refused at start, unless allowed explicitly', async () => {
    const dir = tempDir('fwd-http-');
    const log = join(dir, 'events.db');
    const insecure = { endpoint: 'http://otel-gateway.invalid:4318', headers: { Authorization: 'Bearer ${env:FWD_TOKEN}' } };
    const r = spawnSync(process.execPath, [BEACON_BIN, 'collector', '--port', '0', '--log', log, '--config', configFile(dir, insecure)], { env: { ...process.env, HOME: dir, FWD_TOKEN: TOKEN }, encoding: 'utf8', timeout: 15_000 });
    assert.notEqual(r.status, 0, 'the collector did not start');
    assert.match(r.stderr + r.stdout, /"authorization" would go to otel-gateway\.invalid:4318 in clear text \(http:\/\/\).*allowCredentialsOverHttp/);
    assert.ok(!(r.stderr + r.stdout).includes(TOKEN));
    // the explicit opt-in, and loopback, start
    for (const dest of [{ ...insecure, allowCredentialsOverHttp: true }, { ...insecure, endpoint: url }]) {
      const c = await startCollector({ log: join(tempDir('fwd-http-ok-'), 'events.db'), args: ['--config', configFile(dir, dest)], env: { FWD_TOKEN: TOKEN } });
      await c.stop();
    }
  });
});
