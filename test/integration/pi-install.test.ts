/**
 * `beacon install pi`'s report: Pi has no OTLP export, so install says so and where its data comes
 * from instead of offering a content-capture switch Pi does not have (it printed "content capture off
 * (pass --capture-content to export no OTLP export: …)"); and Pi, whose extension already records its
 * model calls, is not one of the store-only agents the collector follows by default (Cline is).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { beaconIn, fakeHome } from '../helpers/fake-home';
import { storeOnlyAgentsInstalled } from '../../src/setup/store-only-agents';

describe('beacon install pi: what it says about OTLP', () => {
  for (const flags of [[], ['--capture-content']]) {
    it(`install pi ${flags.join(' ')}: no OTLP to set up, the extension records the rest; no content switch`, () => {
      const h = fakeHome();
      const r = beaconIn(h, ['install', 'pi', ...flags]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^no OTLP to set up: Pi has no OpenTelemetry export\. Its extension records the prompt/m);
      assert.doesNotMatch(r.stdout, /content capture|will export/, r.stdout);
    });
  }

  it('the collector follows the stores of installed Cline, not of installed Pi (its extension sees every call)', () => {
    const h = fakeHome();
    assert.equal(beaconIn(h, ['install', 'pi']).status, 0);
    assert.equal(storeOnlyAgentsInstalled(h.env), undefined);
    assert.equal(beaconIn(h, ['install', 'cline']).status, 0);
    assert.equal(storeOnlyAgentsInstalled(h.env), 'cline');
  });
});
