import { beaconVersion } from '../../config/paths';
import type { CommandIO, CommandSpec } from '../args';

export const spec = {
  name: 'beacon version',
  summary: 'print the version',
  usage: '',
  description: "Prints this install's version (its package.json's).",
  options: {},
  examples: ['beacon --version'],
} as const satisfies CommandSpec;

/** Anything after it is ignored, as `--version` usually is. */
export function run(_argv: string[], { out }: Pick<CommandIO, 'out'>): number {
  out(`beacon ${beaconVersion()}`);
  return 0;
}
