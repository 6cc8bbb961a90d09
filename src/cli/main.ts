import { BeaconError, isBeaconError } from '../model/errors';
import { COLLECTOR_USAGE, runCollector } from './collector';
import { EVENTS_USAGE, runEvents } from './events';
import { PRUNE_USAGE, runPrune } from './prune';
import { SETUP_USAGE, runDoctorCommand, runInstall, runServiceCommand } from './setup';
import { STREAM_USAGE, runStream } from './stream';
import { TOKEN_USAGE_USAGE, runTokenUsage } from './token-usage';

const USAGE = `usage: beacon <command> [options]

commands:
  collector   run the OTLP/HTTP collector in the foreground
  events      list stored events
  token-usage tokens and cost per session, model, provider, day or hour
  prune       apply the retention policy to the event log now
  stream      turn goose stream-json output into harness events (and record them)
  install     set up goose's hooks plugin (and, asked, its OTLP export); uninstall removes it
  doctor      check, one by one, that goose telemetry will arrive
  service     run the collector in the background (systemd user unit, launchd agent)

${COLLECTOR_USAGE}

${EVENTS_USAGE}

${TOKEN_USAGE_USAGE}

${PRUNE_USAGE}

${STREAM_USAGE}

${SETUP_USAGE}`;

/** `beacon` entry: dispatches a subcommand and maps errors to exit codes (2 usage, 1 anything else). */
export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...rest] = argv;
  const out = (s: string) => process.stdout.write(`${s}\n`);
  try {
    switch (command) {
      case 'collector':
        return await runCollector(rest, env);
      case 'events':
        return await runEvents(rest, env, out);
      case 'install':
        return runInstall(rest, env, out);
      case 'uninstall':
        return runInstall(rest, env, out, true);
      case 'doctor':
        return await runDoctorCommand(rest, env, out);
      case 'service':
        return runServiceCommand(rest, env, out);
      case 'prune':
        return runPrune(rest, env, out);
      case 'token-usage':
        return runTokenUsage(rest, env, out);
      case 'stream':
        return await runStream(rest, { stdin: process.stdin, stdout: process.stdout, stderr: (s) => process.stderr.write(s), env });
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new BeaconError('usage', `unknown command "${command}"`);
    }
  } catch (e) {
    const usage = isBeaconError(e) ? e.code === 'usage' : (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
    process.stderr.write(`beacon: ${(e as Error).message}\n`);
    if (usage) process.stderr.write(`run "beacon help" for usage\n`);
    return usage ? 2 : 1;
  }
}
