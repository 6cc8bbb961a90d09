/**
 * Error replies say what is wrong without quoting the sender's input back (issue 22 item 11): on
 * main a bad traceId came back whole (a token sent by mistake as an id went to whoever reads the
 * reply or the log), V8's JSON message quoted the body around the error, an attribute key and an
 * unknown path came back at any length, control characters and all. Over a real socket.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCollector, type RunningCollector } from '../helpers/daemon';
import { traceRequest } from '../helpers/otlp-json';

const SECRET = 'ghp_Zq7Zq7Zq7Zq7Zq7Zq7Zq7Zq7Zq7Zq7Zq7Zq7';

describe('error replies do not echo the input', () => {
  let c: RunningCollector;
  before(async () => {
    c = await startCollector();
  });
  after(async () => {
    await c?.stop();
  });

  const post = (path: string, body: string) => fetch(`${c.url}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  const span = (extra: Record<string, unknown>) => traceRequest([{ name: 's', traceId: 'ab'.repeat(16), spanId: '01'.repeat(8), start: 1n, end: 2n, attributes: {}, ...extra }]);

  it('a bad traceId: named, at most a short escaped prefix shown', async () => {
    const r = await post('/v1/traces', JSON.stringify(span({ traceId: SECRET })));
    assert.equal(r.status, 400);
    const text = await r.text();
    assert.match(text, /traceId must be 32 hex digits/);
    assert.ok(!text.includes(SECRET.slice(0, 16)), text);
  });

  it('invalid JSON: the position, not the text around it', async () => {
    const r = await post('/v1/traces', `{"resourceSpans": [ {"password": ${SECRET}} ]}`);
    assert.equal(r.status, 400);
    const text = await r.text();
    assert.match(text, /invalid JSON/);
    assert.ok(!text.includes('ghp_Zq7'), text);
  });

  it('an attribute key and an unknown enum value: cut and escaped', async () => {
    const key = `k\u001b[31m${'x'.repeat(300)}${SECRET}`;
    const body = span({});
    const s = (body as any).resourceSpans[0].scopeSpans[0].spans[0]; // eslint-disable-line @typescript-eslint/no-explicit-any
    s.attributes = [{ key, value: { boolValue: 'yes' } }];
    let text = await (await post('/v1/traces', JSON.stringify(body))).text();
    assert.match(text, /boolValue must be a boolean/);
    assert.ok(!text.includes('xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx') && !text.includes('\u001b'), text);
    s.attributes = [];
    s.kind = `${SECRET}${SECRET}`;
    text = await (await post('/v1/traces', JSON.stringify(body))).text();
    assert.match(text, /unknown enum value/);
    assert.ok(!text.includes(SECRET.slice(0, 16)), text);
  });

  it('an unknown path: a short escaped prefix', async () => {
    const r = await post(`/v1/${'p'.repeat(2000)}${SECRET}`, '{}');
    assert.equal(r.status, 404);
    const text = await r.text();
    assert.match(text, /404 page not found/);
    assert.ok(text.length < 400 && !text.includes(SECRET.slice(0, 16)), text);
  });
});
