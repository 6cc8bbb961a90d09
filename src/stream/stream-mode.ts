import { BeaconError } from '../model/errors';

/** One option of an agent's stream mode: the spelling Beacon adds, the others the agent accepts, its value. */
export interface StreamFlag {
  name: string;
  aliases?: readonly string[];
  /** absent: a switch (`--verbose`) */
  value?: string;
}

/**
 * How an agent is run in its JSON stream mode: the one description the help text shows and the
 * wrapper (`beacon stream <agent> -- <command…>`) completes a command line from.
 */
export interface StreamMode {
  /** the agent's program (`claude`); a launcher in front of it (`node …/gemini.js`) is found by this name */
  program: string;
  /** its headless subcommand (`codex exec`, `opencode run`) */
  subcommand?: { name: string; aliases?: readonly string[] };
  /** what the user must give and Beacon cannot (a prompt: `-p …`), shown in the help text only */
  userPart?: string;
  flags: readonly StreamFlag[];
}

const spellings = (f: { name: string; aliases?: readonly string[] }) => [f.name, ...(f.aliases ?? [])];
const flagWords = (f: StreamFlag) => (f.value !== undefined ? [f.name, f.value] : [f.name]);

/** `claude -p --output-format stream-json --verbose`: the mode as a command line, for help text. */
export function streamModeCommand(mode: StreamMode): string {
  return [mode.program, ...(mode.subcommand ? [mode.subcommand.name] : []), ...(mode.userPart ? [mode.userPart] : []), ...mode.flags.flatMap(flagWords)].join(' ');
}

/**
 * The agent's command line with its stream mode completed: the subcommand when the command has
 * none (inserted after the program), each stream flag it lacks (after the subcommand, or the
 * program), nothing it already has. A flag the command gives another value (`--output-format
 * text`) is refused: the stream would not be the one Beacon reads. Only the words before the
 * command's own `--` are options; after it they are the agent's arguments (a prompt).
 */
export function withStreamMode(mode: StreamMode, argv: readonly string[], agent: string): string[] {
  if (argv.length === 0) throw new BeaconError('usage', `stream ${agent}: which command after --? (e.g. ${streamModeCommand(mode)})`);
  const end = argv.indexOf('--') < 0 ? argv.length : argv.indexOf('--');
  const base = (w: string) => w.replace(/^.*\//, '').replace(/\.[cm]?js$/, '');
  const program = Math.max(0, argv.slice(0, end).findIndex((w) => base(w) === mode.program));
  const out = [...argv];
  let at = program + 1;
  if (mode.subcommand) {
    const sub = out.slice(at, end).findIndex((w) => spellings(mode.subcommand!).includes(w));
    if (sub < 0) out.splice(at, 0, mode.subcommand.name);
    at = sub < 0 ? at + 1 : at + sub + 1;
  }
  const options = out.slice(0, out.indexOf('--') < 0 ? out.length : out.indexOf('--'));
  const missing: string[] = [];
  for (const f of mode.flags) {
    const given = flagValue(options, spellings(f), f.value !== undefined);
    if (given === undefined) missing.push(...flagWords(f));
    else if (f.value !== undefined && given !== f.value) {
      throw new BeaconError('usage', `stream ${agent}: the command gives ${f.name} ${given}; Beacon reads the agent's ${f.name} ${f.value} stream (leave the flag out and Beacon adds it)`);
    }
  }
  out.splice(at, 0, ...missing);
  return out;
}

/** The value a command gives an option (`--f v` or `--f=v`; '' for a switch), undefined when absent. */
function flagValue(words: readonly string[], names: readonly string[], takesValue: boolean): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (names.includes(w)) return takesValue ? (words[i + 1] ?? '') : '';
    const eq = names.find((n) => n.startsWith('--') && w.startsWith(`${n}=`));
    if (eq) return w.slice(eq.length + 1);
  }
  return undefined;
}
