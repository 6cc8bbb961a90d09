import type { Catalog, Overrides, PricedModel } from './catalog';

/** Which catalog surfaces a runtime's provider id bills on (goose ids and OTel `gen_ai.provider.name`). */
const PROVIDERS: Record<string, string[]> = {
  anthropic: ['anthropic'],
  openai: ['openai'],
  google: ['gemini'],
  gemini: ['gemini'],
  'gcp.gemini': ['gemini'],
  gcp_vertex_ai: ['vertex_ai-language-models', 'vertex_ai-anthropic_models', 'vertex_ai'],
  'gcp.vertex_ai': ['vertex_ai-language-models', 'vertex_ai-anthropic_models', 'vertex_ai'],
  vertex_ai: ['vertex_ai-language-models', 'vertex_ai-anthropic_models', 'vertex_ai'],
  databricks: ['databricks'],
  openrouter: ['openrouter'],
  azure: ['azure', 'azure_ai'],
  azure_openai: ['azure'],
  'azure.ai.openai': ['azure'],
  'azure.ai.inference': ['azure_ai'],
  aws_bedrock: ['bedrock', 'bedrock_converse'],
  bedrock: ['bedrock', 'bedrock_converse'],
  'aws.bedrock': ['bedrock', 'bedrock_converse'],
  groq: ['groq'],
  xai: ['xai'],
  x_ai: ['xai'],
  mistral: ['mistral'],
  mistral_ai: ['mistral'],
  deepseek: ['deepseek'],
  github_copilot: ['github_copilot'],
};

export type Match =
  | { priced: true; key: string; source: 'override' | 'catalog'; rates: PricedModel }
  | { priced: false; reason: 'unknown model' | 'ambiguous' | 'no model' };

const samePrices = (a: PricedModel, b: PricedModel) =>
  JSON.stringify([a.input, a.output, a.cache_read, a.cache_write_5m, a.cache_write_1h, a.tiers]) ===
  JSON.stringify([b.input, b.output, b.cache_read, b.cache_write_5m, b.cache_write_1h, b.tiers]);

/**
 * A strict ladder: an exact override; the exact model name (or `<provider>/<model>`) among the
 * catalog entries of the event's provider; the same without a date suffix. Several entries that
 * disagree on price leave the model unpriced rather than guessed.
 */
export function matchModel(model: string | null, provider: string | null, catalog: Catalog, overrides?: Overrides): Match {
  if (!model) return { priced: false, reason: 'no model' };
  const o = overrides?.models[model];
  if (o) return { priced: true, key: model, source: 'override', rates: o };
  const surfaces = provider ? PROVIDERS[provider.toLowerCase()] : undefined;
  for (const name of [model, model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '')]) {
    const keys = [name, ...(surfaces ?? []).map((s) => `${s}/${name}`), ...(provider ? [`${provider.toLowerCase()}/${name}`] : [])];
    let found = [...new Set(keys)].filter((k) => catalog.models[k]).map((k) => ({ key: k, rates: catalog.models[k]! }));
    if (surfaces) found = found.filter((f) => surfaces.includes(f.rates.provider));
    if (found.length === 0) continue;
    if (found.every((f) => samePrices(f.rates, found[0]!.rates))) return { priced: true, key: found[0]!.key, source: 'catalog', rates: found[0]!.rates };
    return { priced: false, reason: 'ambiguous' };
  }
  return { priced: false, reason: 'unknown model' };
}
