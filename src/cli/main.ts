import { BeaconError, isBeaconError } from '../model/errors';
import { escapeControls } from '../model/terminal';
import { didYouMean } from '../model/suggest';
import type { CommandIO } from './args';
import { usage } from './commands/help';
import { COMMAND_NAMES, loadCommand } from './registry';

/**
 * stdout for the commands: a reader that went away (`| head -1`) ends the command normally, exit 0,
 * instead of an unhandled EPIPE. A command that `ownsStdout` (`beacon stream`) handles it itself.
 */
function quietOnClosedPipe(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    process.stderr.write(`beacon: cannot write to stdout: ${e.message}\n`);
    process.exit(1);
  });
}

/** `beacon` entry: dispatches a subcommand (src/cli/registry.ts) and maps errors to exit codes (2 usage, 1 anything else). */
export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [word, ...rest] = argv;
  const io: CommandIO = {
    env,
    // every line a subcommand prints may carry recorded content: escaped for the terminal here, once
    out: (s) => void process.stdout.write(`${escapeControls(s, { layout: true })}\n`),
    stderr: (s) => void process.stderr.write(s),
    // read when a command reads it (stream): creating process.stdin loads the stream machinery, ~3 ms of every command
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
  };
  try {
    if (word === undefined) {
      process.stderr.write(`${usage()}\n`);
      return 2;
    }
    // doctor's slowest probe starts before doctor's modules load (doctor-prestart.ts)
    if (word === 'doctor') (require('./doctor-prestart') as typeof import('./doctor-prestart')).prestartDoctorProbes(rest, env);
    const command = loadCommand(word);
    if (!command?.spec.ownsStdout) quietOnClosedPipe();
    if (!command) throw new BeaconError('usage', `unknown command "${word}"${didYouMean(word, COMMAND_NAMES)}`);
    // an alias takes nothing after it: `beacon --help events` lists the commands, as it always did
    return await command.run(COMMAND_NAMES.includes(word) ? rest : [], io);
  } catch (e) {
    const isUsage = isBeaconError(e) ? e.code === 'usage' : (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
    process.stderr.write(`beacon: ${escapeControls((e as Error).message, { layout: true })}\n`);
    if (isUsage) process.stderr.write(`run "beacon ${COMMAND_NAMES.includes(word!) ? `${word} --help` : 'help'}" for usage\n`);
    return isUsage ? 2 : 1;
  }
}
