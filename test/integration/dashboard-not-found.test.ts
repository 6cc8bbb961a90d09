import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startCollector, type RunningCollector } from '../helpers/daemon';

/**
 * An unknown URL asked for by a browser: the dashboard's 404 page is rendered by its query thread,
 * which loads the pages and opens the log; without a login it is the plain 404, so an anonymous
 * request never starts that thread (it did: the not-found handler ran before any token check).
 */
const TOKEN = 'dash-Tok3n-0a1b2c3d4e5f60718293a4b5';

describe('the dashboard 404 for a browser', () => {
  let collector: RunningCollector;
  before(async () => {
    collector = await startCollector({ env: { BEACON_DASHBOARD_TOKEN: TOKEN } });
  });
  after(async () => collector?.stop());

  const get = (headers: Record<string, string>) => fetch(`${collector.url}/no-such-page`, { headers: { accept: 'text/html', ...headers } });

  it('is the plain 404 without a login, and a page once signed in', async () => {
    const anonymous = await get({});
    assert.equal(anonymous.status, 404);
    assert.doesNotMatch(String(anonymous.headers.get('content-type')), /text\/html/);
    await anonymous.arrayBuffer();
    const signedIn = await get({ authorization: `Bearer ${TOKEN}` });
    assert.equal(signedIn.status, 404);
    assert.match(String(signedIn.headers.get('content-type')), /text\/html/);
    assert.match(await signedIn.text(), /Not found/);
  });
});
