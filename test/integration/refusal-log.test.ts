import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startCollector } from '../helpers/daemon';

describe('refused exports are logged at the default level, as counts', () => {
  it('the first refusal of a kind at once, repeats counted and logged at the latest on stop; never the body', async () => {
    const c = await startCollector();
    const post = (body: string, type = 'application/json') => fetch(`${c.url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': type } });
    assert.equal((await post('{"resourceSpans": "secret-prompt-text"')).status, 400);
    assert.equal((await post('x', 'text/plain')).status, 415);
    for (let i = 0; i < 3; i++) await post('{broken secret-prompt-text');
    await new Promise((r) => setTimeout(r, 200));
    const logged = () => c.lines.map((l) => JSON.parse(l)).filter((j) => /refused/.test(j.msg));
    const first = logged();
    assert.deepEqual(first.map((j) => [j.level, j.msg, j.status, j.count]), [[30, 'export refused', 400, 1], [30, 'export refused', 415, 1]]);
    assert.equal(await c.stop(), 0);
    const all = logged();
    assert.deepEqual(all.slice(2).map((j) => [j.msg, j.status, j.count]), [['exports refused', 400, 3]]);
    assert.ok(!c.lines.some((l) => l.includes('secret-prompt-text')), 'no content in logs');
  });

  it('a refused dashboard request is logged as a request, not as an export (issue 33)', async () => {
    const c = await startCollector({ env: { BEACON_DASHBOARD_TOKEN: 'tok-123' } });
    assert.equal((await fetch(`${c.url}/sessions`)).status, 403);
    await new Promise((r) => setTimeout(r, 200));
    const refused = c.lines.map((l) => JSON.parse(l)).filter((j) => /refused/.test(j.msg));
    assert.equal(await c.stop(), 0);
    assert.deepEqual(refused.map((j) => [j.msg, j.status, j.path]), [['request refused', 403, '/sessions']]);
  });
});
