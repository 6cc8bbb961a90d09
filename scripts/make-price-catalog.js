#!/usr/bin/env node
// Derives data/price-catalog.json from LiteLLM's model_prices_and_context_window.json (MIT).
// Run by hand when the source is updated: node scripts/make-price-catalog.js <litellm json> <commit> <content date>
// Keeps the standard tier only (no priority/flex/batch), per-token rates as USD per million tokens.
'use strict';
const { createHash } = require('node:crypto');
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const [src, commit, contentDate] = process.argv.slice(2);
if (!src || !commit || !contentDate) {
  console.error('usage: make-price-catalog.js <litellm json> <commit> <content date YYYY-MM-DD>');
  process.exit(2);
}
const raw = readFileSync(src);
const table = JSON.parse(raw.toString('utf8'));
const perMtok = (v) => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v * 1e6 * 1e6) / 1e6 : undefined);
const TIERS = [128000, 200000, 256000, 272000, 512000];
const RATES = { input: 'input_cost_per_token', output: 'output_cost_per_token', cache_read: 'cache_read_input_token_cost', cache_write_5m: 'cache_creation_input_token_cost', cache_write_1h: 'cache_creation_input_token_cost_above_1hr' };

const models = {};
for (const key of Object.keys(table).sort()) {
  const m = table[key];
  if (key === 'sample_spec' || typeof m !== 'object' || m === null || !m.litellm_provider) continue;
  if (m.mode && !['chat', 'completion', 'responses'].includes(m.mode)) continue;
  if (m.input_cost_per_token === undefined && m.output_cost_per_token === undefined) continue;
  const entry = { provider: m.litellm_provider };
  for (const [name, field] of Object.entries(RATES)) {
    const v = perMtok(m[field]);
    if (v !== undefined) entry[name] = v;
  }
  const tiers = [];
  for (const t of TIERS) {
    const k = `_above_${t / 1000}k_tokens`;
    const tier = { above_tokens: t };
    for (const [name, field] of Object.entries(RATES)) {
      const v = perMtok(m[name === 'cache_write_1h' ? `cache_creation_input_token_cost_above_1hr${k}` : `${field}${k}`]);
      if (v !== undefined) tier[name] = v;
    }
    if (Object.keys(tier).length > 1) tiers.push(tier);
  }
  if (tiers.length) entry.tiers = tiers;
  models[key] = entry;
}
const catalog = {
  schema: 'beacon.pricing.catalog/v1',
  unit: 'USD per million tokens, standard tier',
  source: {
    repository: 'BerriAI/litellm',
    path: 'model_prices_and_context_window.json',
    commit,
    content_as_of: contentDate,
    sha256: createHash('sha256').update(raw).digest('hex'),
    license: 'MIT, Copyright (c) 2023 Berri AI',
  },
  models,
};
writeFileSync(join(__dirname, '..', 'data', 'price-catalog.json'), `${JSON.stringify(catalog)}\n`);
console.log(`${Object.keys(models).length} models written`);
