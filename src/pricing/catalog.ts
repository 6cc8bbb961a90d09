import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beaconBaseDir, packageRoot } from '../config/paths';
import { BeaconError } from '../model/errors';

/** USD per million tokens. Absent means unpublished: cache rates then fall back to the input rate. */
export interface Rates {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write_5m?: number;
  cache_write_1h?: number;
}

export interface PricedModel extends Rates {
  provider: string;
  tiers?: (Rates & { above_tokens: number })[];
}

export interface Catalog {
  schema: string;
  source: { repository: string; path: string; commit: string; content_as_of: string; sha256: string };
  models: Record<string, PricedModel>;
}

export interface Overrides {
  path: string;
  models: Record<string, PricedModel>;
}

/** The catalog shipped with the package (data/price-catalog.json, derived from LiteLLM). Never fetched. */
export function loadCatalog(): Catalog {
  return JSON.parse(readFileSync(join(packageRoot(), 'data', 'price-catalog.json'), 'utf8')) as Catalog;
}

export function overridesPath(env: NodeJS.ProcessEnv): string {
  return join(beaconBaseDir(env), 'pricing', 'overrides.json');
}

/**
 * The user's own prices (`beacon.pricing.overrides/v1`): `{"schema": …, "models": {"<model>":
 * {"input": 3, "output": 15, "cache_read": 0.3, "cache_write_5m": 3.75, "cache_write_1h": 6}}}`,
 * USD per million tokens; matched by exact model name before the catalog.
 */
export function loadOverrides(path: string): Overrides | undefined {
  if (!existsSync(path)) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new BeaconError('bad_data', `price overrides ${path} are not valid JSON: ${(e as Error).message}`);
  }
  const o = doc as { schema?: unknown; models?: unknown };
  if (o?.schema !== 'beacon.pricing.overrides/v1' || typeof o.models !== 'object' || o.models === null) {
    throw new BeaconError('bad_data', `price overrides ${path} must be {"schema": "beacon.pricing.overrides/v1", "models": {…}}`);
  }
  const models: Record<string, PricedModel> = {};
  for (const [name, rates] of Object.entries(o.models as Record<string, Record<string, unknown>>)) {
    const m: PricedModel = { provider: typeof rates.provider === 'string' ? rates.provider : '*' };
    for (const k of ['input', 'output', 'cache_read', 'cache_write_5m', 'cache_write_1h'] as const) {
      const v = rates[k];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !(v >= 0)) throw new BeaconError('bad_data', `price overrides ${path}: ${name}.${k} must be a non-negative number`);
      m[k] = v;
    }
    models[name] = m;
  }
  return { path, models };
}
