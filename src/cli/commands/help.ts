import type { CommandIO, CommandSpec } from '../args';
import { COMMAND_NAMES, loadCommand } from '../registry';

export const spec = {
  name: 'beacon help',
  summary: 'this list; beacon COMMAND --help for one command',
  usage: '[COMMAND]',
  description: 'Lists the commands; with a command, its usage, options and examples (as COMMAND --help).',
  options: {},
  examples: ['beacon help', 'beacon help events'],
} as const satisfies CommandSpec;

/**
 * The list, from every command's spec. It loads every command module (~0.1 s, the collector's
 * fastify most of it): a price only `beacon --help` pays, so that the others load one module each.
 */
export function usage(): string {
  const specs = COMMAND_NAMES.map((name) => loadCommand(name)!.spec);
  const w = Math.max(...specs.map((s) => short(s).length));
  return `usage: beacon <command> [options]

commands:
${specs.map((s) => `  ${short(s).padEnd(w)}  ${s.summary}`).join('\n')}

Every command takes --help. Exit codes: 0 success, 1 failure (doctor: a check failed), 2 bad command line.

examples:
  beacon collector
  beacon events --since 2h
  beacon token-usage --by day`;
}

const short = (s: CommandSpec) => s.name.replace(/^beacon /, '');

/** `beacon help events` is `beacon events --help`; `help` and `version` have no page of their own. */
export async function run(argv: string[], io: CommandIO): Promise<number> {
  const topic = argv[0];
  const command = topic && COMMAND_NAMES.includes(topic) && topic !== 'help' && topic !== 'version' ? loadCommand(topic) : undefined;
  if (command) return command.run(['--help'], io);
  io.out(usage());
  return 0;
}
