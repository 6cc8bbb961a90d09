import { CONFIG_KEYS, CONFIG_KEY_NAMES, flagHelp, parseIntStrict, type CollectorConfig, type ConfigKey } from '../config/config-keys';
import type { OptionSpec } from './args';

/** The option a config key's flag is on a command line, from its definition: a number or string takes a value. */
type FlagOption<K extends ConfigKey> = OptionSpec & { type: (typeof CONFIG_KEYS)[K]['type'] extends 'boolean' ? 'boolean' : 'string' };

/** A command's option for a config key (`--max-body-bytes` for maxBodyBytes): its help and default come from the key's definition. */
export function configOption<K extends ConfigKey>(key: K): FlagOption<K> {
  const { type, flag } = CONFIG_KEYS[key];
  if (!flag) throw new Error(`config key ${key} has no flag`);
  if (type === 'boolean') return { type: 'boolean', help: flagHelp(key) } as FlagOption<K>;
  return { type: 'string', arg: flag.arg ?? 'N', help: flagHelp(key) } as FlagOption<K>;
}

/**
 * The flag layer of the config, from a command line parsed with `configOption`s: every key whose
 * flag was given, a number parsed (a bad one is the command line's mistake: exit 2). The range is
 * checked with the other layers. Only for commands whose options of these names are the keys' flags.
 */
export function configFlags(values: Readonly<Record<string, string | boolean | undefined>>): Partial<CollectorConfig> {
  const out: Record<string, unknown> = {};
  for (const key of CONFIG_KEY_NAMES) {
    const { type, flag } = CONFIG_KEYS[key];
    const v = flag && values[flag.name];
    if (flag && v !== undefined) out[key] = type === 'number' ? parseIntStrict(String(v), `--${flag.name}`) : v;
  }
  return out as Partial<CollectorConfig>;
}
