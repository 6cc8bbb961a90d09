import { chmodSync, existsSync, readdirSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureHookToken } from '../config/hook-token';
import { otlpHeadersValue } from '../config/otlp-token';
import { beaconBaseDir } from '../config/paths';
import { isGooseName } from '../model/harness';
import { checkPrivateDir, ensurePrivateDir, readChecked } from '../model/file-checks';
import { removeInTree, writeInTree } from '../model/tree-files';
import { BeaconError } from '../model/errors';
import { didYouMean } from '../model/suggest';
import { escapeControls } from '../model/terminal';
import { ENDPOINT_KEY, checkEditable, configureOtlp, otlpSnippet, readGooseConfig, revertOtlp, type OtlpEdit } from './goose-config';
import { gooseLocations, hooksFile } from './goose-paths';
import { REGISTRATIONS, checkInstallable, installHooksFile, renderHooksJson, uninstallHooksFile } from './hooks-file';
import { shellQuote } from '../model/shell-quote';

const GOOSE_AI = new Set(['gooseai', 'goose-ai', 'goose.ai']);

/** Install targets are named in Beacon's spellings; GooseAI (an inference service) is refused by name. */
export function resolveHarness(name: string | undefined): 'goose' {
  if (name === undefined) throw new BeaconError('usage', 'which harness? supported: goose (beacon install goose)');
  if (isGooseName(name)) return 'goose';
  if (GOOSE_AI.has(name.trim().toLowerCase())) {
    throw new BeaconError('usage', `"${name}" is GooseAI, an LLM inference service from another company, not the goose agent; Beacon installs nothing for it. Did you mean "goose"?`);
  }
  throw new BeaconError('usage', `unsupported harness "${name}"${didYouMean(name, ['goose'])} (supported: goose)`);
}

export interface InstallContext {
  scope: 'user' | 'project';
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** event log and config paths the hook commands carry */
  log: string;
  config: string;
  /** launcher goose runs, and what it runs */
  launcher: string;
  node: string;
  hooksBundle: string;
  /** the collector's base URL, for goose's otel_exporter_otlp_endpoint */
  endpoint: string;
  /** the collector's otlpToken, when set: goose reads its OTLP headers from its environment only */
  otlpToken?: string;
}

/**
 * The POSIX sh launcher goose runs for every hook. Fast path: the payload goes to the running
 * collector over loopback with curl, and the collector records it and prints goose's reply — no
 * Node.js starts while goose waits. Fallback, whenever the fast path does not answer 200 (collector
 * down or slow, another event log, no token, no curl): this install's hook adapter, with the Node.js
 * that ran the install pinned (goose's desktop app runs hooks with a login-shell PATH that may lack
 * `node`). Both get the same idempotency key, so an event sent both ways lands once.
 */
export function renderLauncher(node: string, bundle: string): string {
  return `#!/bin/sh
# Written by \`beacon install goose\`. goose's \`sh -c\` sources it for every hook, the arguments set
# first and the event as JSON on stdin (hooks.json); run as a command with the same arguments, it
# does the same.
# Fast path: curl hands the event to the running Beacon collector, which records it and answers.
# Fallback: this install's hook adapter records it straight into the event log.
node=${shellQuote(node)}
bundle=${shellQuote(bundle)}
${LAUNCHER_BODY}`;
}

/** The launcher after its two pinned paths: the same for every install (see renderLauncher). */
const LAUNCHER_BODY = `log= platform= prev=
for arg do
  case $prev in
    --log) log=$arg ;;
    --platform) platform=$arg ;;
  esac
  prev=$arg
done
# One key per invocation: events without an identity of their own take their id from it, on
# whichever path records them. On Linux this shell's pid, start time (clock ticks since boot) and
# the boot's id name this process uniquely, read without a fork; elsewhere the pid and the second.
hook_key() {
  if read -r stat </proc/$$/stat && read -r boot </proc/sys/kernel/random/boot_id; then
    set -- \${stat##*) }
    BEACON_HOOK_KEY="$$-\${20}-$boot"
  else
    BEACON_HOOK_KEY="$$-$(date +%s)"
  fi
} 2>/dev/null
hook_key
export BEACON_HOOK_KEY
# The policy provider, resolved once here where goose set it (its directory, its PATH): the collector
# has neither, and both paths must run the same file. A name that resolves to nothing is no provider.
case \${BEACON_POLICY_PROVIDER:-} in
  '' | /*) ;;
  */*) BEACON_POLICY_PROVIDER="$PWD/$BEACON_POLICY_PROVIDER"; export BEACON_POLICY_PROVIDER ;;
  *)
    BEACON_POLICY_PROVIDER=$(command -v "$BEACON_POLICY_PROVIDER" 2>/dev/null)
    case $BEACON_POLICY_PROVIDER in /*) ;; *) BEACON_POLICY_PROVIDER= ;; esac
    export BEACON_POLICY_PROVIDER ;;
esac
token="\${log%/*}/hook-token"
# A collector writing this log says where it listens, its pid and the pid's start time, in a file of
# ours beside the log that it removes when it stops (src/config/collector-address.ts). No file, or
# its collector gone — killed, or the pid reused since (the start time differs; pid 0 or 1 is never
# one) — and there is no curl to make, and no port to hand the token to that someone else may have
# taken since. Both checks are the shell's own (\`read\` of /proc, \`kill -0\` without /proc).
collector_alive() {
  case $1 in '' | 0 | 1 | *[!0-9]*) return 1 ;; esac
  if [ -r /proc/$$/stat ]; then
    [ -n "$2" ] && read -r st </proc/$1/stat || return 1
    started=$2
    set -- \${st##*) }
    [ "\${20}" = "$started" ]
  else
    kill -0 "$1"
  fi
} 2>/dev/null
address="$log.collector-url" url= pid= started= port=
if [ "$platform" = goose ] && [ -n "$log" ] && [ -r "$token" ] && [ -O "$address" ] && read -r url pid started 2>/dev/null <"$address"; then
  case $url in
    http://127.0.0.1:*) port=\${url#http://127.0.0.1:} ;;
    http://\\[::1\\]:*) port=\${url#http://\\[::1\\]:} ;;
  esac
  case $port in ''|*[!0-9]*) url= ;; esac
  collector_alive "$pid" "$started" || url=
fi
if [ -n "$url" ] && command -v curl >/dev/null 2>&1; then
  case $prev in
    session-start|prompt-submit|pre-tool|pre-tool-result|post-tool|stop|session-end)
      # Kept for the fallback. $(cat) drops trailing newlines: JSON whitespace, the same on both paths.
      payload=$(cat)
      # The here-document feeds curl without a process for the writer (a pipe would need one).
      if reply=$(curl -sf --noproxy '*' --connect-timeout 1 --max-time 4 \
        -H @"$token" -H 'Content-Type: application/json' -H "X-Beacon-Hook-Key: $BEACON_HOOK_KEY" \
        -H "X-Beacon-Log: $log" -H "X-Beacon-Policy-Provider: \${BEACON_POLICY_PROVIDER:-}" \
        --data-binary @- "$url/v1/hooks/goose/$prev" 2>/dev/null <<BEACON_PAYLOAD
$payload
BEACON_PAYLOAD
      ); then
        # Only what the collector answers (a verdict or nothing) reaches goose.
        case $reply in '' | '{"decision":'*) printf %s "$reply"; exit 0 ;; esac
      fi
      # Not recorded there: the adapter below reads the payload kept, as its standard input.
      exec 0<<BEACON_PAYLOAD
$payload
BEACON_PAYLOAD
      ;;
  esac
fi
# No attempt made (no collector runs): the adapter reads goose's standard input itself.
if [ ! -x "$node" ] || [ ! -r "$bundle" ]; then
  # goose must never be broken by Beacon: answer a blocking hook, say why nothing was recorded.
  echo "beacon-hooks: event not recorded: $node or $bundle is missing (run 'beacon install goose' again)" >&2
  case $prev in pre-tool|stop) printf '{"decision":"allow"}' ;; esac
  exit 0
fi
exec "$node" "$bundle" "$@"
`;

/**
 * Replaced whole (a new file renamed over the old): goose may source the launcher at any moment, and
 * a half-written one would be an empty hook (an event lost) or a syntax error (exit 2, a deny).
 */
function writeLauncher(path: string, content: string): boolean {
  ensurePrivateDir(dirname(path)); // another user's (or a 0777) bin/ could swap the launcher: refused (issue 22 item 1)
  if (existsSync(path) && readChecked(path, 1 << 20).toString('utf8') === content) return false;
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o755, flag: 'wx' });
  chmodSync(tmp, 0o755);
  renameSync(tmp, path);
  return true;
}

/**
 * What install did, so uninstall can undo exactly that: the hooks files it wrote (the launcher goes
 * with the last of them) and the config.yaml keys it set, with the values they replaced.
 */
interface InstallState {
  hooksFiles: string[];
  /** directories above the plugin that install created (`.agents`, `.agents/plugins`): uninstall removes them when empty */
  createdDirs?: string[];
  otlp?: { path: string; edit: OtlpEdit };
  /** the other agents' settings files install edited (src/setup/agent-install.ts), kept as they are here */
  agents?: Record<string, unknown>;
}

export const statePath = (env: NodeJS.ProcessEnv) => join(beaconBaseDir(env), 'install-state.json');

/** No install records more than this; a larger file is refused, not read. */
const MAX_STATE_BYTES = 4 << 20;

/**
 * Read as Beacon's own file (model/file-checks.ts): it names the files uninstall removes and
 * restores, so one another user could write or link is refused, not obeyed.
 */
export function readState(env: NodeJS.ProcessEnv): InstallState {
  const file = statePath(env);
  let text: string;
  try {
    checkPrivateDir(dirname(file));
    text = readChecked(file, MAX_STATE_BYTES).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { hooksFiles: [] };
    throw e;
  }
  try {
    const s = JSON.parse(text) as InstallState;
    const strings = (a: unknown) => (Array.isArray(a) ? a.filter((f): f is string => typeof f === 'string') : []);
    return { hooksFiles: strings(s.hooksFiles), createdDirs: strings(s.createdDirs), otlp: s.otlp, ...(s.agents && typeof s.agents === 'object' ? { agents: s.agents } : {}) };
  } catch {
    return { hooksFiles: [] };
  }
}

export function writeState(env: NodeJS.ProcessEnv, state: InstallState): void {
  const file = statePath(env);
  if (state.hooksFiles.length === 0 && !state.otlp && !state.createdDirs?.length && Object.keys(state.agents ?? {}).length === 0) {
    removeInTree(file);
    return;
  }
  ensurePrivateDir(dirname(file));
  writeInTree(file, `${JSON.stringify(state, null, 2)}\n`, { secret: true });
}

/** `beacon install goose`: both collection paths in one step; returns what it did, line by line. */
export function installGoose(ctx: InstallContext, configure: boolean): string[] {
  const loc = gooseLocations(ctx.env, ctx.cwd);
  const agents = ctx.scope === 'user' ? loc.userAgentsDir : loc.projectAgentsDir;
  const report: string[] = [];
  const file = hooksFile(agents);
  const hooks = renderHooksJson(ctx.launcher, ctx.log, ctx.config);
  // No symlink is followed below the project directory, nor written through at all (issue 29 item 3).
  const tree = ctx.scope === 'project' ? { root: ctx.cwd } : {};
  // Everything that can refuse is checked before anything is written: a refusal changes nothing.
  checkInstallable(file, tree);
  if (configure) checkEditable(loc.configYaml);
  for (const dir of [beaconBaseDir(ctx.env), dirname(ctx.launcher), dirname(ctx.log)]) checkPrivateDir(dir);
  const state = readState(ctx.env);
  const launcherChanged = writeLauncher(ctx.launcher, renderLauncher(ctx.node, ctx.hooksBundle));
  ensureHookToken(ctx.log);
  report.push(`${launcherChanged ? 'wrote' : 'kept'} the hook launcher ${ctx.launcher}`);
  const created = [agents, join(agents, 'plugins')].filter((d) => !existsSync(d));
  state.createdDirs = [...new Set([...(state.createdDirs ?? []), ...created])];
  const r = installHooksFile(file, hooks, tree);
  if (!state.hooksFiles.includes(file)) state.hooksFiles.push(file);
  report.push(`${r.changed ? 'wrote' : 'already installed:'} ${file} (${REGISTRATIONS.length} hook registrations, ${ctx.scope} scope)`);
  if (ctx.scope === 'project') report.push('project scope replaces a user-scope beacon-endpoint plugin for goose sessions started in this directory');

  if (configure) {
    const c = configureOtlp(loc.configYaml, ctx.endpoint);
    if (c.changed) {
      // A second install keeps the first one's record of what the keys held before Beacon.
      const before = state.otlp?.path === loc.configYaml ? state.otlp.edit : {};
      const edit: OtlpEdit = { ...c.edit };
      for (const [k, v] of Object.entries(before)) if (edit[k]) edit[k] = { wrote: edit[k]!.wrote, previous: v.previous };
      state.otlp = { path: loc.configYaml, edit: { ...before, ...edit } };
    }
    report.push(c.changed ? `set the OTLP endpoint in ${loc.configYaml}${c.backup ? ` (backup: ${c.backup})` : ''}` : `${loc.configYaml} already exports to ${ctx.endpoint}`);
  } else {
    const view = readGooseConfig(loc.configYaml);
    if (view.endpoint === ctx.endpoint) report.push(`${loc.configYaml} already exports to ${ctx.endpoint}`);
    // a key already there is changed, not added again: two otel_exporter_otlp_endpoint lines are a duplicate key
    else if (view.endpoint !== undefined) report.push(`goose's config stays yours: in ${loc.configYaml} change ${ENDPOINT_KEY} from ${escapeControls(view.endpoint)} to ${ctx.endpoint} (or rerun with --configure-otlp, which edits it where it stands)`);
    else report.push(`goose's config stays yours: add these lines to ${loc.configYaml} (or rerun with --configure-otlp):\n\n${otlpSnippet(ctx.endpoint)}`);
  }
  writeState(ctx.env, state);
  if (ctx.otlpToken) {
    report.push(`this collector requires its otlpToken, and goose reads OTLP headers from its environment only: add this line to your shell's startup file (then open a new shell):\n\n    export OTEL_EXPORTER_OTLP_HEADERS=${shellQuote(otlpHeadersValue(ctx.otlpToken))}\n`);
  }
  report.push('restart goose (or start a new session): plugins are discovered when a session begins. Then run `beacon doctor`.');
  return report;
}

export function uninstallGoose(ctx: Pick<InstallContext, 'scope' | 'env' | 'cwd' | 'launcher'>): string[] {
  const loc = gooseLocations(ctx.env, ctx.cwd);
  const agents = ctx.scope === 'user' ? loc.userAgentsDir : loc.projectAgentsDir;
  const file = hooksFile(agents);
  const r = uninstallHooksFile(file, agents, ctx.scope === 'project' ? { root: ctx.cwd } : {});
  const report = [r.removed ? `removed ${r.file}` : `nothing to remove: ${r.file} does not exist`];
  const state0 = readState(ctx.env);
  // deepest first: .agents/plugins before .agents
  for (const dir of [join(agents, 'plugins'), agents]) {
    if (!state0.createdDirs?.includes(dir)) continue;
    if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
    if (!existsSync(dir)) state0.createdDirs = state0.createdDirs.filter((d) => d !== dir);
  }
  writeState(ctx.env, state0);
  const state = readState(ctx.env);
  state.hooksFiles = state.hooksFiles.filter((f) => f !== file && existsSync(f));
  if (state.hooksFiles.length === 0) {
    // The launcher serves every scope: it goes with the last hooks file, with the directories it leaves empty.
    if (existsSync(ctx.launcher)) {
      unlinkSync(ctx.launcher);
      report.push(`removed the hook launcher ${ctx.launcher}`);
      removeEmptyDirs(dirname(ctx.launcher), beaconBaseDir(ctx.env));
    }
    if (state.otlp) {
      const lines = revertOtlp(state.otlp.path, state.otlp.edit);
      report.push(...(lines.length > 0 ? lines : [`${state.otlp.path}: the OTLP keys beacon install set are gone already`]));
      state.otlp = undefined;
    } else {
      const view = readGooseConfig(loc.configYaml);
      if (view.endpoint) report.push(`goose's ${loc.configYaml} was not edited by beacon install: its ${view.endpoint} export is left as it is`);
    }
  } else {
    report.push(`kept the hook launcher and goose's OTLP settings: still used by ${state.hooksFiles.join(', ')}`);
  }
  writeState(ctx.env, state);
  return report;
}

/** Removes `dir` and its parents while empty, never above `stop`. */
function removeEmptyDirs(dir: string, stop: string): void {
  for (let d = dir; d.startsWith(stop) && d.length >= stop.length; d = dirname(d)) {
    if (!existsSync(d) || readdirSync(d).length > 0) break;
    rmdirSync(d);
    if (d === stop) break;
  }
}
