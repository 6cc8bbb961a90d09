import { parseArgs } from 'node:util';
import { BeaconError } from '../model/errors';
import { didYouMean } from '../model/suggest';

/**
 * Every subcommand declares its options once, with their help text: the same table parses the
 * command line (node's `parseArgs`, strict), renders `--help`, and suggests the flag a user
 * mistyped. We considered commander/yargs; parseArgs already does the parsing, and what they add
 * (help, suggestions) is this file, without their load time on every `beacon events`.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** the value's placeholder in help: PATH, N, T */
  arg?: string;
  help: string;
}

export interface CommandSpec<O extends Record<string, OptionSpec> = Record<string, OptionSpec>> {
  /** `beacon events`, `beacon service` */
  name: string;
  /** its line in `beacon --help` and in the README's command table */
  summary: string;
  /** the command handles a closed stdout itself (`beacon stream` keeps recording) */
  ownsStdout?: boolean;
  /** what follows the name in the usage line, e.g. `goose [options]` */
  usage: string;
  /** a paragraph: what the command does */
  description: string;
  options: O;
  examples: string[];
  /** allowed values of the one positional, for `did you mean` (`install|uninstall|status`); absent: none allowed */
  positionals?: readonly string[];
  /** the positional may be given several times (`beacon import claude-code codex`) */
  manyPositionals?: boolean;
}

/** What a command may use of the process: each command's `run` takes the part it needs. */
export interface CommandIO {
  env: NodeJS.ProcessEnv;
  /** one line to stdout, escaped for the terminal */
  out: (s: string) => void;
  stderr: (s: string) => void;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
}

/** A module under `src/cli/commands/`: its spec (name, summary, options) and what running it does. */
export interface CommandModule {
  spec: CommandSpec;
  run(argv: string[], io: CommandIO): number | Promise<number>;
}

type Values<O extends Record<string, OptionSpec>> = { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean };

export interface Parsed<O extends Record<string, OptionSpec>> {
  values: Values<O>;
  positionals: string[];
}

export function renderHelp(spec: CommandSpec): string {
  const rows: [string, string][] = Object.entries(spec.options).map(([name, o]) => [
    `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ` ${o.arg ?? 'VALUE'}` : ''}`,
    o.help,
  ]);
  rows.push(['-h, --help', 'show this help']);
  const width = Math.max(...rows.map(([l]) => l.length));
  return [
    `usage: ${spec.name} ${spec.usage}`,
    '',
    spec.description,
    '',
    'options:',
    ...rows.map(([l, h]) => `  ${l.padEnd(width)}  ${h.replace(/\n/g, `\n  ${' '.repeat(width)}  `)}`),
    '',
    'examples:',
    ...spec.examples.map((e) => `  ${e}`),
  ].join('\n');
}

/** `--help`/`-h` anywhere before a `--` separator. */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/**
 * Parses `argv` against the spec. Returns undefined after printing the help when it was asked for
 * (the caller exits 0); throws a `usage` BeaconError, with a suggestion, for a bad command line.
 */
export function parseCommand<const O extends Record<string, OptionSpec>>(spec: CommandSpec<O>, argv: string[], out: (s: string) => void): Parsed<O> | undefined {
  if (wantsHelp(argv)) {
    out(renderHelp(spec));
    return undefined;
  }
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, o] of Object.entries(spec.options)) options[name] = o.short ? { type: o.type, short: o.short } : { type: o.type };
  try {
    const r = parseArgs({ args: argv, options, allowPositionals: spec.positionals !== undefined, strict: true });
    // A command takes one positional at most (an agent, an action) unless it says otherwise: a second is a mistake, said here once.
    if (r.positionals.length > 1 && !spec.manyPositionals) throw new BeaconError('usage', `${short(spec)}: unexpected argument "${r.positionals[1]}"`);
    return { values: r.values as Values<O>, positionals: r.positionals };
  } catch (e) {
    throw e instanceof BeaconError ? e : usageError(spec, e as Error & { code?: string });
  }
}

/** node's parse errors, reworded for a user (they talk about `--` separators and `<value>`s). */
function usageError(spec: CommandSpec, e: Error & { code?: string }): BeaconError {
  const names = Object.keys(spec.options).map((n) => `--${n}`);
  const unknown = /Unknown option '([^']+)'/.exec(e.message);
  if (unknown) {
    const flag = unknown[1]!;
    return new BeaconError('usage', `${short(spec)}: unknown option ${flag}${didYouMean(flag.startsWith('--') ? flag : `--${flag.replace(/^-/, '')}`, [...names, '--help'], (s) => s)}`);
  }
  const missing = /Option '(?:-\w, )?(--[\w-]+)[^']*' argument (?:is )?(?:missing|ambiguous)/.exec(e.message);
  if (missing) {
    const o = spec.options[missing[1]!.slice(2)];
    return new BeaconError('usage', `${short(spec)}: ${missing[1]} needs a value${o?.arg ? ` (${o.arg})` : ''}`);
  }
  const positional = /Unexpected argument '([^']*)'/.exec(e.message);
  if (positional) return new BeaconError('usage', `${short(spec)}: unexpected argument "${positional[1]}"`);
  const boolValue = /Option '(?:-\w, )?(--[\w-]+)' does not take an argument/.exec(e.message);
  if (boolValue) return new BeaconError('usage', `${short(spec)}: ${boolValue[1]} takes no value`);
  return new BeaconError('usage', `${short(spec)}: ${e.message}`);
}

/** A positional that must be one of the spec's, with a suggestion when it is not. */
export function expectPositional(spec: CommandSpec, value: string | undefined, what: string): string {
  const known = spec.positionals ?? [];
  if (value !== undefined && known.includes(value)) return value;
  if (value === undefined) throw new BeaconError('usage', `${short(spec)}: which ${what}? ${known.join(', ')}`);
  throw new BeaconError('usage', `${short(spec)}: unknown ${what} "${value}"${didYouMean(value, known)} (expected ${known.join(', ')})`);
}

/** `events` for `beacon events`: the CLI prefixes its messages with `beacon:` already. */
const short = (spec: CommandSpec) => spec.name.replace(/^beacon /, '');
