import type { CommandModule } from './args';

/**
 * Every `beacon` command, in the order `beacon --help` and the README list them: one line each
 * (`test/unit/cli-commands.test.ts` checks a module under commands/ is here and in the README).
 * Loaded when run, not up front: the collector should not carry the YAML library (~9 MB resident)
 * or the price catalog it never uses, and short commands start faster.
 */
export const COMMANDS = {
  collector: () => require('./commands/collector') as typeof import('./commands/collector'),
  events: () => require('./commands/events') as typeof import('./commands/events'),
  sessions: () => require('./commands/sessions') as typeof import('./commands/sessions'),
  'token-usage': () => require('./commands/token-usage') as typeof import('./commands/token-usage'),
  import: () => require('./commands/import') as typeof import('./commands/import'),
  prune: () => require('./commands/prune') as typeof import('./commands/prune'),
  stream: () => require('./commands/stream') as typeof import('./commands/stream'),
  install: () => require('./commands/install') as typeof import('./commands/install'),
  uninstall: () => require('./commands/uninstall') as typeof import('./commands/uninstall'),
  doctor: () => require('./commands/doctor') as typeof import('./commands/doctor'),
  service: () => require('./commands/service') as typeof import('./commands/service'),
  dashboard: () => require('./commands/dashboard') as typeof import('./commands/dashboard'),
  version: () => require('./commands/version') as typeof import('./commands/version'),
  help: () => require('./commands/help') as typeof import('./commands/help'),
} satisfies Record<string, () => CommandModule>;

export const COMMAND_NAMES = Object.keys(COMMANDS);

/** The command a word names (`events`), or is an alias of (`--version`): these are spelled out, not loaded to find out. */
const ALIASES: Record<string, keyof typeof COMMANDS> = { '--version': 'version', '-V': 'version', '--help': 'help', '-h': 'help' };

export function loadCommand(word: string): CommandModule | undefined {
  const name = Object.hasOwn(COMMANDS, word) ? (word as keyof typeof COMMANDS) : ALIASES[word];
  return name === undefined ? undefined : COMMANDS[name]();
}
