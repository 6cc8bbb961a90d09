import { BeaconError, isBeaconError } from '../model/errors';

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
};

function usage(): string {
  return `usage: beacon <command> [options]

commands:
  collector   run the OTLP/HTTP collector in the foreground
  events      list stored events (--follow: as they are committed)
  token-usage tokens and cost per session, model, provider, day or hour
  prune       apply the retention policy to the event log now
  stream      turn goose stream-json output into harness events (and record them)
  install     set up goose's hooks plugin (and, asked, its OTLP export); uninstall removes it
  doctor      check, one by one, that goose telemetry will arrive
  service     run the collector in the background (systemd user unit, launchd agent)
  dashboard   print (--open: open) the URL of the collector's local dashboard

${load.collector().COLLECTOR_USAGE}

${load.events().EVENTS_USAGE}

${load.tokenUsage().TOKEN_USAGE_USAGE}

${load.prune().PRUNE_USAGE}

${load.stream().STREAM_USAGE}

${load.setup().SETUP_USAGE}

${load.dashboard().DASHBOARD_USAGE}`;
}

/** `beacon` entry: dispatches a subcommand and maps errors to exit codes (2 usage, 1 anything else). */
export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...rest] = argv;
  const out = (s: string) => process.stdout.write(`${s}\n`);
  try {
    switch (command) {
      case 'collector':
        return await load.collector().runCollector(rest, env);
      case 'events':
        return await load.events().runEvents(rest, env, out);
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
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        out(usage());
        return command === undefined ? 2 : 0;
      default:
        throw new BeaconError('usage', `unknown command "${command}"`);
    }
  } catch (e) {
    const isUsage = isBeaconError(e) ? e.code === 'usage' : (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
    process.stderr.write(`beacon: ${(e as Error).message}\n`);
    if (isUsage) process.stderr.write(`run "beacon help" for usage\n`);
    return isUsage ? 2 : 1;
  }
}
