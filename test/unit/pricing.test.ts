import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Catalog, PricedModel } from '../../src/pricing/catalog';
import { loadCatalog } from '../../src/pricing/catalog';
import { estimateCost } from '../../src/pricing/estimate';
import { matchModel } from '../../src/pricing/match';

const cat = (models: Record<string, PricedModel>): Catalog => ({ schema: 'x', source: { repository: '', path: '', commit: '', content_as_of: '', sha256: '' }, models });
const noTier = { 200000: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, 272000: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } };

describe('price catalog and matching', () => {
  const catalog = loadCatalog();

  it('ships the LiteLLM-derived catalog with its source recorded', () => {
    assert.equal(catalog.source.commit, '00035b69f416be24e2e323c13198d9b7d2d1bdf9');
    assert.deepEqual(
      { input: catalog.models['claude-sonnet-4-5']!.input, output: catalog.models['claude-sonnet-4-5']!.output, cr: catalog.models['claude-sonnet-4-5']!.cache_read, w5: catalog.models['claude-sonnet-4-5']!.cache_write_5m, w1: catalog.models['claude-sonnet-4-5']!.cache_write_1h },
      { input: 3, output: 15, cr: 0.3, w5: 3.75, w1: 6 },
    );
  });

  it('matches exact names within the provider, dated names, and provider-prefixed keys', () => {
    assert.equal((matchModel('claude-sonnet-4-5-20250929', 'anthropic', catalog) as { key: string }).key, 'claude-sonnet-4-5-20250929');
    assert.equal((matchModel('gpt-5.4', 'openai', catalog) as { key: string }).key, 'gpt-5.4');
    assert.equal((matchModel('anthropic/claude-sonnet-4.5', 'openrouter', catalog) as { key: string }).key, 'openrouter/anthropic/claude-sonnet-4.5');
    const dated = cat({ 'm-1': { provider: 'anthropic', input: 1, output: 2 } });
    assert.equal((matchModel('m-1-20260101', 'anthropic', dated) as { key: string }).key, 'm-1');
  });

  it('leaves unknown and ambiguous models unpriced instead of guessing', () => {
    assert.deepEqual(matchModel('my-local-model', 'ollama', catalog), { priced: false, reason: 'unknown model' });
    const twice = cat({ x: { provider: 'a', input: 1, output: 1 }, 'b/x': { provider: 'b', input: 9, output: 9 } });
    assert.equal(matchModel('x', 'a', twice).priced, true, 'the provider decides');
    const ambiguous = cat({ x: { provider: 'vertex_ai-language-models', input: 1, output: 1 }, 'vertex_ai/x': { provider: 'vertex_ai-anthropic_models', input: 2, output: 2 } });
    assert.deepEqual(matchModel('x', 'gcp_vertex_ai', ambiguous), { priced: false, reason: 'ambiguous' });
    assert.deepEqual(matchModel(null, 'anthropic', catalog), { priced: false, reason: 'no model' });
  });

  it('overrides win by exact model name', () => {
    const m = matchModel('my-local-model', 'ollama', catalog, { path: 'o', models: { 'my-local-model': { provider: '*', input: 0.5, output: 1 } } });
    assert.equal(m.priced && m.source, 'override');
  });
});

describe('list-price estimate', () => {
  const sonnet: PricedModel = { provider: 'anthropic', input: 3, output: 15, cache_read: 0.3, cache_write_5m: 3.75, cache_write_1h: 6, tiers: [{ above_tokens: 200000, input: 6, output: 22.5, cache_read: 0.6, cache_write_5m: 7.5 }] };

  it('prices each disjoint bucket at its own rate (cache writes at the 5-minute rate)', () => {
    const c = estimateCost({ input: 740, output: 310, cacheRead: 23900, cacheWrite: 1500, above: noTier }, sonnet)!;
    assert.equal(Math.round(c * 1e9) / 1e9, 0.019665);
  });

  it('prices calls over the long-context threshold at the tier rates', () => {
    const above = { ...noTier, 200000: { input: 250000, output: 1000, cacheRead: 0, cacheWrite: 0 } };
    const c = estimateCost({ input: 250100, output: 1100, cacheRead: 0, cacheWrite: 0, above }, sonnet)!;
    assert.equal(Math.round(c * 1e9) / 1e9, Math.round(((100 * 3 + 100 * 15) / 1e6 + (250000 * 6 + 1000 * 22.5) / 1e6) * 1e9) / 1e9);
  });

  it('cache rates fall back to the input rate; a model without input or output rate is unpriced', () => {
    const c = estimateCost({ input: 0, output: 0, cacheRead: 1e6, cacheWrite: 1e6, above: noTier }, { provider: 'x', input: 2, output: 4 })!;
    assert.equal(c, 4);
    assert.equal(estimateCost({ input: 1, output: 1, cacheRead: 0, cacheWrite: 0, above: noTier }, { provider: 'x', output: 4 }), undefined);
  });
});
