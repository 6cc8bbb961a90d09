import { beaconVersion } from '../../config/paths';
import { wantsHelp, renderHelp, type CommandIO, type CommandSpec } from '../args';

export const spec = {
  name: 'beacon version',
  summary: 'print the version',
  usage: '',
  description: "Prints this install's version (its package.json's).",
  options: {},
  examples: ['beacon version', 'beacon --version'],
} as const satisfies CommandSpec;

/** Anything after it but a request for help is ignored, as `--version` usually is. */
export function run(argv: string[], { out }: Pick<CommandIO, 'out'>): number {
  if (wantsHelp(argv)) {
    out(renderHelp(spec));
    return 0;
  }
  out(`beacon ${beaconVersion()}`);
  return 0;
}
