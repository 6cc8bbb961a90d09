import { BeaconError, isBeaconError } from '../model/errors';
import { escapeControls } from '../model/terminal';
import { didYouMean } from '../model/suggest';
import { beaconVersion } from '../config/paths';
import { wantsHelp } from './args';

/**
 * Subcommands are loaded when run, not up front: the collector should not carry the YAML library
 * (~9 MB resident) or the price catalog it never uses, and short commands start faster.
 */
const load = {
  collector: () => require('./collector') as typeof import('./collector'),
  events: () => require('./events') as typeof import('./events'),
  tokenUsage: () => require('./token-usage') as typeof import('./token-usage'),
  prune: () => require('./prune') as typeof import('./prune'),
  stream: () => require('./stream') as typeof import('./stream'),
  setup: () => require('./setup') as typeof import('./setup'),
  dashboard: () => require('./dashboard') as typeof import('./dashboard'),
  sessions: () => require('./sessions') as typeof import('./sessions'),
};

const COMMANDS: [name: string, summary: string][] = [
  ['collector', 'run the OTLP/HTTP collector in the foreground'],
  ['events', 'list stored events (--follow: as they are committed)'],
  ['sessions', 'agent sessions: duration, repository, models, calls, failures, tokens, cost'],
  ['token-usage', 'tokens and cost per model, session, provider, day, week or month'],
  ['prune', 'apply the retention policy to the event log now'],
  ['stream', 'turn goose stream-json output into harness events (and record them)'],
  ['install', "set up goose's hooks plugin (and, asked, its OTLP export)"],
  ['uninstall', 'undo beacon install'],
  ['doctor', 'check, one by one, that goose telemetry will arrive'],
  ['service', 'run the collector in the background (systemd user unit, launchd agent)'],
  ['dashboard', "print (--open: open) the URL of the collector's local dashboard"],
  ['version', 'print the version'],
  ['help', 'this list; beacon COMMAND --help for one command'],
];

function usage(): string {
  const w = Math.max(...COMMANDS.map(([n]) => n.length));
  return `usage: beacon <command> [options]

commands:
${COMMANDS.map(([n, s]) => `  ${n.padEnd(w)}  ${s}`).join('\n')}

Every command takes --help. Exit codes: 0 success, 1 failure (doctor: a check failed), 2 bad command line.

examples:
  beacon collector
  beacon events --since 2h
  beacon token-usage --by day`;
}

export type Out = (s: string) => void;

/**
 * stdout for the commands: a reader that went away (`| head -1`) ends the command normally, exit 0,
 * instead of an unhandled EPIPE. `beacon stream` handles its own stdout (it keeps recording).
 */
function quietOnClosedPipe(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    process.stderr.write(`beacon: cannot write to stdout: ${e.message}\n`);
    process.exit(1);
  });
}

/** `beacon` entry: dispatches a subcommand and maps errors to exit codes (2 usage, 1 anything else). */
export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...rest] = argv;
  // every line a subcommand prints may carry recorded content: escaped for the terminal here, once
  const out: Out = (s) => void process.stdout.write(`${escapeControls(s, { layout: true })}\n`);
  if (command !== 'stream') quietOnClosedPipe();
  try {
    switch (command) {
      case 'collector':
        return await load.collector().runCollector(rest, env);
      case 'events':
        return await load.events().runEvents(rest, env, out);
      case 'sessions':
        return await load.sessions().runSessions(rest, env, out);
      case 'token-usage':
        return load.tokenUsage().runTokenUsage(rest, env, out);
      case 'prune':
        return load.prune().runPrune(rest, env, out);
      case 'stream':
        return await load.stream().runStream(rest, { stdin: process.stdin, stdout: process.stdout, stderr: (s) => process.stderr.write(s), env });
      case 'install':
        return load.setup().runInstall(rest, env, out);
      case 'uninstall':
        return load.setup().runInstall(rest, env, out, true);
      case 'doctor':
        return await load.setup().runDoctorCommand(rest, env, out);
      case 'service':
        return load.setup().runServiceCommand(rest, env, out);
      case 'dashboard':
        return await load.dashboard().runDashboard(rest, env, out, (s) => process.stderr.write(s));
      case 'version':
      case '--version':
      case '-V':
        out(`beacon ${beaconVersion()}`);
        return 0;
      case 'help':
        if (rest[0] && COMMANDS.some(([n]) => n === rest[0]) && rest[0] !== 'help' && rest[0] !== 'version') return await main([rest[0], '--help'], env);
        out(usage());
        return 0;
      case '--help':
      case '-h':
        out(usage());
        return 0;
      case undefined:
        process.stderr.write(`${usage()}\n`);
        return 2;
      default:
        if (wantsHelp([command])) {
          out(usage());
          return 0;
        }
        throw new BeaconError('usage', `unknown command "${command}"${didYouMean(command, COMMANDS.map(([n]) => n))}`);
    }
  } catch (e) {
    const isUsage = isBeaconError(e) ? e.code === 'usage' : (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
    process.stderr.write(`beacon: ${escapeControls((e as Error).message, { layout: true })}\n`);
    if (isUsage) process.stderr.write(`run "beacon ${command && COMMANDS.some(([n]) => n === command) ? `${command} --help` : 'help'}" for usage\n`);
    return isUsage ? 2 : 1;
  }
}
