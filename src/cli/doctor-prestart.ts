import { hooksLauncherPath } from '../config/paths';
import { prestartGooseLauncher } from '../setup/goose-checks';

/** commands/doctor.ts's options, by kind: a value follows these */
const VALUE_OPTIONS = ['--log', '--config', '--port'];
const FLAG_OPTIONS = ['--json', '--send-test'];

/**
 * `beacon doctor`'s slowest probe, goose's hook launcher (a second Node.js start), started before
 * the command's modules load (issue 33: ~70 ms of them — the agent registry, the config reader —
 * came first, then the launcher's start, one after the other). Only for an argv read here for sure
 * as plain doctor or `doctor goose` (the launcher path and the plugin depend on the environment
 * and the working directory only); help, another agent or anything unexpected waits for doctor's
 * own parse, and goose's doctor starts the run itself (launcher-probe.ts takes a prestarted one).
 */
export function prestartDoctorProbes(argv: readonly string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): void {
  let agent: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (FLAG_OPTIONS.includes(a) || VALUE_OPTIONS.some((o) => a.startsWith(`${o}=`))) continue;
    if (VALUE_OPTIONS.includes(a)) {
      const value = argv[++i];
      if (value === undefined || value.startsWith('-')) return;
      continue;
    }
    if (a.startsWith('-') || agent !== undefined) return;
    agent = a;
  }
  if (agent === undefined || agent === 'goose') prestartGooseLauncher(env, cwd, hooksLauncherPath(env));
}
